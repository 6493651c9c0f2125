import { defineDomain } from '../domain';
import { linkActions } from './actions';
import { linksErrors } from './errors';
import { linkRoutes } from './routes';
import { linksCollection } from './schema';
import { LinkService } from './service';

/** Short links: shortlink.* actions and the GET /s/{code} redirect. */
export function linksDomain() {
  return defineDomain({
    name: 'links',
    needs: ['users'],
    errors: linksErrors,
    collections: [linksCollection],
    actions: linkActions,
    start(app) {
      app.services.links = new LinkService(app);
    },
    routes: linkRoutes,
    async stop(app) {
      // Hits counted just before shutdown are written before the database closes.
      await app.services.links.flushAll();
    },
  });
}
