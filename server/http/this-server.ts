import type { ListenInfo } from '../app-context';
import { localHostNames } from './addresses';
import { canonicalHost, isLoopbackHost } from './hosts';

/** What ThisServer reads of a running server (an AppContext has both). */
export interface ServerFacts {
  readonly settings: { get(): { network: { allowedHosts: readonly string[]; publicBaseUrl: string } } };
  readonly listening: ListenInfo | null;
}

/** How often this machine's host names and interface addresses are read again (networks change). */
const MACHINE_NAMES_TTL_MS = 30_000;

/**
 * The names and addresses by which a URL reaches this PennyPost server, in every spelling the URL
 * parser accepts (server/http/hosts.ts). Short links refuse any URL on this machine; PennyPost's own
 * outbound requests (push channels, mail servers, sync) refuse the ones that would come back to
 * this very server (./outbound-policy.ts).
 */
export class ThisServer {
  /** localHostNames() in canonical form, and when they were read. */
  private machineNames: Set<string> | null = null;
  private machineNamesAt = 0;

  constructor(private readonly facts: ServerFacts) {}

  /**
   * This machine's own host names and interface addresses, and the address the server listens on
   * (loopback spellings are isLoopbackHost's).
   */
  private machineHosts(): Set<string> {
    const now = Date.now();
    if (!this.machineNames || now - this.machineNamesAt > MACHINE_NAMES_TTL_MS) {
      this.machineNames = new Set(
        localHostNames()
          .map(canonicalHost)
          .filter((h): h is string => h !== null),
      );
      this.machineNamesAt = now;
    }
    const listening = this.facts.listening ? canonicalHost(this.facts.listening.host) : null;
    return listening ? new Set([...this.machineNames, listening]) : this.machineNames;
  }

  /**
   * The names configured as this server's own: settings.network.allowedHosts (names a reverse proxy
   * or the LAN's DNS gives it) and the host of settings.network.publicBaseUrl. They mean this server
   * on any port: a proxy serves it on ports of its own.
   */
  private configuredHosts(): Set<string> {
    const network = this.facts.settings.get().network;
    const names = network.allowedHosts.map(canonicalHost);
    if (network.publicBaseUrl) {
      try {
        names.push(canonicalHost(new URL(network.publicBaseUrl).host));
      } catch {
        // not a URL: nothing to compare with
      }
    }
    return new Set(names.filter((h): h is string => h !== null));
  }

  /**
   * Whether a host (any spelling) names this machine or this server on some port: a loopback host,
   * one of the machine's names and addresses, or a configured name. Short links refuse every such
   * URL, whatever its port (docs/files-and-links.md › Targets).
   */
  namesThisMachine(host: string): boolean {
    const name = canonicalHost(host);
    if (name === null) return false;
    return isLoopbackHost(name) || this.machineHosts().has(name) || this.configuredHosts().has(name);
  }

  /**
   * Whether a request to `host:port` reaches this very server: a configured name of this server on
   * any port, or this machine (a loopback host, its names and interface addresses, resolved
   * addresses included) on the port the server listens on. Other ports of this machine are other
   * programs (a local ntfy, a test fake), which only the outbound policy's "local" rule concerns.
   */
  isReachedAt(host: string, port: number): boolean {
    const name = canonicalHost(host);
    if (name === null) return false;
    if (this.configuredHosts().has(name)) return true;
    const listening = this.facts.listening;
    if (!listening || port !== listening.port) return false;
    return isLoopbackHost(name) || this.machineHosts().has(name);
  }
}
