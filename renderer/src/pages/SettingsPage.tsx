export default function SettingsPage() {
  return <div className="pp-page">TODO</div>;
}
