import type { AppContext } from '../../app-context';
import type { ChannelLinks } from '../channel-links';
import type { HistoryStore } from '../history';
import type { PageTokens } from '../keys';
import type { MessageOptions } from '../message-options';
import type { TargetDoc } from '../schema';
import type { TargetStore } from '../targets';

/** What the steps of a push read and write: the server, its channels, apps and history. */
export interface SendContext {
  app: AppContext;
  targets: TargetStore;
  history: HistoryStore;
  links: ChannelLinks;
  pages: PageTokens;
}

/** One push to send as an app: what was asked, by whom. */
export interface PushRequest {
  app: TargetDoc;
  title: string;
  desp: string;
  options: MessageOptions;
  /** The caller's address (the history keeps its first 64 characters). */
  caller: string;
  /** A scheduled push keeps the id it was given when it was scheduled. */
  id?: string;
}

/** An error's message for the log (never the request's data). */
export const messageOf = (error: unknown): string | undefined => (error as Error | null | undefined)?.message;
