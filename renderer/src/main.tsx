import './styles/mantine.css';
import './styles/app.css';
import './styles/ledger.css';
import './styles/a11y.css';
import './styles/polish.css';
import './styles/search.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { initI18n } from './i18n';
import { App } from './App';
import { LocaleDates } from './components/LocaleDates';
import { installFocusReturn } from './lib/focus-return';

await initI18n();
installFocusReturn();
const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');
createRoot(root).render(
  <StrictMode>
    <LocaleDates>
      <App />
    </LocaleDates>
  </StrictMode>,
);
