export default function SavingsPage() {
  return <div className="pp-page">TODO</div>;
}
