import { errorCatalogue } from '../lib/errors';

/** The errors of notify.configure / notify.get (docs/api.md names them `notify.<row>`). */
export const notifyErrors = errorCatalogue(
  {
    appNotFound: { code: 404, status: 404, message: () => 'No such push app: it does not exist or is not yours.' },
  },
  'notify',
);
