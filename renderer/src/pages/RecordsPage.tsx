export default function RecordsPage() {
  return <div className="pp-page">TODO</div>;
}
