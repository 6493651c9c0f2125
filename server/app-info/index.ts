import { defineDomain } from '../domain';
import { appInfoActions } from './actions';
import { appInfoErrors } from './errors';
import { AppInfoService } from './service';

/** About this PennyPost: version, runtime, data folder, licences of bundled software. No collections. */
export function appInfoDomain() {
  return defineDomain({
    name: 'app-info',
    actions: appInfoActions,
    errors: appInfoErrors,
    start(app) {
      app.services.appInfo = new AppInfoService(app);
    },
  });
}
