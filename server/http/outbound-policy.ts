import dns, { type LookupAddress, type LookupAllOptions, type LookupOptions } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { commonErrors, type DomainError } from '../lib/errors';
import { canonicalHost, isLoopbackHost } from './hosts';
import { ThisServer, type ServerFacts } from './this-server';

/**
 * Where PennyPost's own outbound requests may go (docs/security.md, "Outbound requests"): the push
 * channels' APIs, webhooks and mail servers, and the CouchDB of sync. Two rules, checked when a
 * destination is saved and again on every connection (resolved addresses included, so a name that
 * changes its address between the two — DNS rebinding — cannot slip through):
 *
 * - nothing goes to this very server (ThisServer.isReachedAt): a push channel pointing at its own
 *   /send would turn one push into a flood;
 * - only the owner — and admins, when the owner sets `network.localDestinations` to
 *   `ownerAndAdmins` — may send to this computer or the local network: loopback, private,
 *   link-local and every other address that is not public unicast. Everyone else's requests go to
 *   the internet only, so no member can make PennyPost read or probe what only this machine or its
 *   network reaches.
 */

export type OutboundRole = 'owner' | 'admin' | 'member';

/** Who may send PennyPost's requests to this computer or the local network (settings.network.localDestinations). */
export const LOCAL_DESTINATIONS = ['owner', 'ownerAndAdmins'] as const;
export type LocalDestinations = (typeof LOCAL_DESTINATIONS)[number];

/** What the policy reads of a running server: its names, its settings and the role of an account. */
export interface PolicyFacts extends ServerFacts {
  readonly settings: { get(): { network: { allowedHosts: readonly string[]; publicBaseUrl: string; localDestinations: LocalDestinations } } };
}

/** dns.lookup's shape with every address (what the policy resolves names with; tests hand in their own). */
export type Resolver = (hostname: string, options: LookupAllOptions, callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

export interface PolicyOptions {
  /** The role of an account (null: no such account, treated as a member). */
  roleOf(userId: string): Promise<OutboundRole | null>;
  /** Name resolution (default dns.lookup, the system's resolver, as every connection uses). */
  resolve?: Resolver;
}

/** A destination of a config as the save-time check sees it: the field to blame, the host and port. */
export interface Endpoint {
  field: string;
  host: string;
  port: number;
}

/** The endpoint of an http(s) URL (its port, or the scheme's default), or null when it is no such URL. */
export function endpointOfUrl(field: string, value: string | URL): Endpoint | null {
  let url: URL;
  try {
    url = typeof value === 'string' ? new URL(value) : value;
  } catch {
    return null;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) return null;
  return { field, host: url.hostname, port: portOfUrl(url) };
}

export const portOfUrl = (url: URL): number => (url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80);

/**
 * Whether an IP address is anything but a public unicast address: loopback, private (10/8, 172.16/12,
 * 192.168/16, fc00::/7), link-local, carrier-grade NAT, unspecified, multicast, broadcast, reserved and
 * documentation ranges, and the IPv6 forms that carry an IPv4 address (mapped, 6to4, Teredo, NAT64),
 * by ipaddr.js's ranges. Text that is not an address counts as local (nothing is sent there).
 */
export function isLocalAddress(address: string): boolean {
  const text = address.replace(/^\[|\]$/g, '').split('%')[0] ?? '';
  if (!isIP(text)) return true;
  return ipaddr.process(text).range() !== 'unicast';
}

/** Why a destination is refused: it is this server, or it is local and the account may not go there. */
export type RefusalReason = 'this-server' | 'local';

/** A destination the policy refuses; `code` lets connection errors carry it through sockets and pools. */
export class OutboundRefusal extends Error {
  readonly code = 'EPENNYPOSTREFUSED';
  constructor(
    readonly reason: RefusalReason,
    message: string,
  ) {
    super(message);
    this.name = 'OutboundRefusal';
  }

  /** The refusal as an answer of a save (400 for this server, 403 for a local address), blaming `field`. */
  toDomainError(field: string): DomainError {
    return (this.reason === 'this-server' ? commonErrors.invalid(this.message) : commonErrors.forbidden(this.message)).at(field);
  }
}

const THIS_SERVER_WORDS =
  'This address leads to this PennyPost server itself. PennyPost does not send its own requests to itself (a push channel that reaches its own /send would turn one push into a flood); use the address of another server.';

function localWords(role: OutboundRole | null): string {
  const who =
    role === 'admin'
      ? 'Only the owner of this PennyPost may send its requests there (the owner can allow admins: setting network.localDestinations).'
      : 'Only the owner of this PennyPost may send its requests there.';
  return `This address is on this computer or the local network (loopback, private or link-local). ${who} Use an address on the internet.`;
}

/** How long the save-time check waits for a name to resolve: a name that does not resolve now is checked when it is used. */
const SAVE_LOOKUP_MS = 2000;

/** Keep-alive agents of one privilege: sockets are never shared between requests the policy treats differently. */
interface Agents {
  http: http.Agent;
  https: https.Agent;
}

const agentOptions = { keepAlive: true, maxSockets: 128, maxFreeSockets: 64, timeout: 30_000 };
const newAgents = (): Agents => ({ http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) });

/**
 * The policy for one account's requests, as it stands when they start: whether local addresses are
 * allowed, the checks of a name and of a resolved address, the `lookup` every connection uses, and
 * the agents whose sockets only such requests share.
 */
export class OutboundScope {
  constructor(
    /** Loopback, private and link-local addresses allowed (the owner; admins when the owner allows it). */
    readonly local: boolean,
    private readonly role: OutboundRole | null,
    private readonly server: ThisServer,
    private readonly resolve: Resolver,
    readonly agents: Agents,
  ) {}

  /** The refusal for a host as a URL or config names it (before any lookup), or null. */
  refusalForName(host: string, port: number): OutboundRefusal | null {
    const name = canonicalHost(host);
    if (name === null) return null;
    if (this.server.isReachedAt(name, port)) return new OutboundRefusal('this-server', THIS_SERVER_WORDS);
    if (this.local) return null;
    const literal = name.startsWith('[') ? name.slice(1, -1) : name;
    if (isLoopbackHost(name) || (isIP(literal) !== 0 && isLocalAddress(literal))) return new OutboundRefusal('local', localWords(this.role));
    return null;
  }

  /** The refusal for an address a name resolved to (or a connection reached), or null. */
  refusalForAddress(address: string, port: number): OutboundRefusal | null {
    if (this.server.isReachedAt(address, port)) return new OutboundRefusal('this-server', THIS_SERVER_WORDS);
    if (!this.local && isLocalAddress(address)) return new OutboundRefusal('local', localWords(this.role));
    return null;
  }

  /**
   * The `lookup` of connections to `port` (net.connect, http.request, nodemailer's socket): the
   * system's answer without the addresses the policy refuses; when nothing is left, the refusal.
   * The addresses it returns are the ones connected to, so the check and the connection see the
   * same answer.
   */
  lookupFor(port: number): LookupFunction {
    return (hostname: string, options: LookupOptions, callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void) => {
      const byName = this.refusalForName(hostname, port);
      if (byName) {
        callback(byName, options.all ? [] : '', 0);
        return;
      }
      this.resolve(hostname, { ...options, all: true }, (error, addresses) => {
        if (error) {
          callback(error, options.all ? [] : '', 0);
          return;
        }
        let refusal: OutboundRefusal | null = null;
        const allowed: LookupAddress[] = [];
        for (const entry of addresses) {
          const refused = this.refusalForAddress(entry.address, port);
          if (refused) refusal ??= refused;
          else allowed.push(entry);
        }
        const first = allowed.at(0);
        if (!first) callback(refusal ?? Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), options.all ? [] : '', 0);
        else if (options.all) callback(null, allowed);
        else callback(null, first.address, first.family);
      });
    };
  }

  /** The refusal of `host:port` by its name or, when it resolves within `timeoutMs`, by its addresses (save-time checks). */
  async refusalOf(host: string, port: number, timeoutMs = SAVE_LOOKUP_MS): Promise<OutboundRefusal | null> {
    const byName = this.refusalForName(host, port);
    if (byName) return byName;
    const name = canonicalHost(host);
    if (name === null || isIP(name.replace(/^\[|\]$/g, '')) !== 0) return null;
    const addresses = await new Promise<LookupAddress[]>((resolve) => {
      const timer = setTimeout(() => resolve([]), timeoutMs);
      this.resolve(name, { all: true }, (error, found) => {
        clearTimeout(timer);
        resolve(error ? [] : found);
      });
    });
    for (const { address } of addresses) {
      const refusal = this.refusalForAddress(address, port);
      if (refusal) return refusal;
    }
    return null;
  }
}

/**
 * The outbound policy of one server. Each domain that sends requests for an account (push, sync)
 * asks it for that account's scope when a request starts, and checks destinations when they are
 * saved (`check`).
 */
export class OutboundPolicy {
  private readonly server: ThisServer;
  private readonly resolve: Resolver;
  private readonly localAgents = newAgents();
  private readonly publicAgents = newAgents();

  constructor(
    private readonly facts: PolicyFacts,
    private readonly options: PolicyOptions,
  ) {
    this.server = new ThisServer(facts);
    this.resolve = options.resolve ?? ((hostname, lookupOptions, callback) => dns.lookup(hostname, lookupOptions, callback));
  }

  /** Whether an account may send to this computer and the local network: the owner; admins when the owner allows it. */
  mayReachLocal(role: OutboundRole | null): boolean {
    if (role === 'owner') return true;
    return role === 'admin' && this.facts.settings.get().network.localDestinations === 'ownerAndAdmins';
  }

  /** The scope of an account's requests as of now (its role is read again for every request). */
  async scopeFor(userId: string): Promise<OutboundScope> {
    const role = await this.options.roleOf(userId);
    const local = this.mayReachLocal(role);
    return new OutboundScope(local, role, this.server, this.resolve, local ? this.localAgents : this.publicAgents);
  }

  /**
   * Save-time check of a config's destinations for an account: throws the first refusal as a
   * DomainError blaming its field (400: this server; 403: a local address the account may not use).
   * A name that does not resolve now is let through; its connections are checked when it is used.
   */
  async check(userId: string, endpoints: readonly Endpoint[]): Promise<void> {
    if (endpoints.length === 0) return;
    const scope = await this.scopeFor(userId);
    for (const endpoint of endpoints) {
      const refusal = await scope.refusalOf(endpoint.host, endpoint.port);
      if (refusal) throw refusal.toDomainError(endpoint.field);
    }
  }

  /** Closes the idle keep-alive sockets (the server is stopping). */
  close(): void {
    for (const agents of [this.localAgents, this.publicAgents]) {
      agents.http.destroy();
      agents.https.destroy();
    }
  }
}
