import type { ListenInfo } from '../../app-context';
import { OutboundPolicy, type LocalDestinations, type OutboundRole, type Resolver } from '../../http/outbound-policy';
import type { ChannelEnv } from '../channels/driver';

export interface OutboundFacts {
  /** The role of every account the channels belong to (default: the owner, who may reach the fakes on 127.0.0.1). */
  role?: OutboundRole;
  /** Where "this server" listens (default: nowhere, so no address is this server). */
  listening?: ListenInfo | null;
  allowedHosts?: string[];
  publicBaseUrl?: string;
  localDestinations?: LocalDestinations;
  /** Name resolution (default: the system's). */
  resolve?: Resolver;
}

/**
 * The outbound policy a server lends its channels (server/http/outbound-policy.ts), for a driver
 * tested on its own: the real policy, over the facts given here instead of a server's.
 */
export function outboundPolicy(facts: OutboundFacts = {}): OutboundPolicy {
  const network = { allowedHosts: facts.allowedHosts ?? [], publicBaseUrl: facts.publicBaseUrl ?? '', localDestinations: facts.localDestinations ?? 'owner' };
  return new OutboundPolicy(
    { settings: { get: () => ({ network }) }, listening: facts.listening ?? null },
    { roleOf: () => Promise.resolve(facts.role ?? 'owner'), ...(facts.resolve ? { resolve: facts.resolve } : {}) },
  );
}

/** A driver's ChannelEnv with the outbound policy of `facts` (by default the owner's: everything but this server allowed). */
export function withOutbound(env: Omit<ChannelEnv, 'outbound'>, facts: OutboundFacts = {}): ChannelEnv {
  const policy = outboundPolicy(facts);
  return { ...env, outbound: (userId) => policy.scopeFor(userId) };
}
