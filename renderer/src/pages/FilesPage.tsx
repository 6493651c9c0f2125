export default function FilesPage() {
  return <div className="pp-page">TODO</div>;
}
