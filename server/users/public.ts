/** What other domains use of users beside app.services.users: the stored account. */
export type { UserDoc } from './schema';
