export default function StatsPage() {
  return <div className="pp-page">TODO</div>;
}
