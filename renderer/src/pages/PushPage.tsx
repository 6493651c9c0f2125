export default function PushPage() {
  return <div className="pp-page">TODO</div>;
}
