/**
 * Outbound HTTP with a timeout, for calls to WeChat, Alipay and webhook targets. Failures are
 * reported as OutboundError with a plain-words reason (never the request URL, which may carry
 * secrets in its query string).
 */
export class OutboundError extends Error {
  constructor(
    message: string,
    readonly kind: 'timeout' | 'network' | 'http' | 'parse',
    readonly status?: number,
  ) {
    super(message);
    this.name = 'OutboundError';
  }
}

export interface OutboundResponse {
  status: number;
  text: string;
}

export async function outbound(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string; timeoutMs: number; service: string },
): Promise<OutboundResponse> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: init.method ?? 'GET',
      headers: init.headers,
      body: init.body,
      signal: AbortSignal.timeout(init.timeoutMs),
      redirect: 'error',
    });
  } catch (error) {
    const name = (error as Error).name;
    if (name === 'TimeoutError' || name === 'AbortError') {
      throw new OutboundError(`${init.service} did not answer within ${init.timeoutMs} ms`, 'timeout');
    }
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new OutboundError(`could not reach ${init.service} (${cause?.code ?? cause?.message ?? 'network error'})`, 'network');
  }
  let text: string;
  try {
    text = await response.text();
  } catch {
    throw new OutboundError(`${init.service} closed the connection mid-answer`, 'network');
  }
  return { status: response.status, text };
}

export async function outboundJson<T>(url: string, init: Parameters<typeof outbound>[1]): Promise<T> {
  const { status, text } = await outbound(url, init);
  if (status >= 500) throw new OutboundError(`${init.service} answered HTTP ${status}`, 'http', status);
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new OutboundError(`${init.service} answered something that is not JSON (HTTP ${status})`, 'parse', status);
  }
}
