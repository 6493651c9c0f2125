export default function AssetsPage() {
  return <div className="pp-page">TODO</div>;
}
