/** What other domains use of push beside app.services.push: the answer of a send. */
export type { SendData } from './send/answer';
