import type { Request } from 'express';

/**
 * The token of `Authorization: Bearer <token>`: null when the header is absent, '' when it is there
 * but not in that form (the caller meant to sign in and got it wrong), else the token.
 */
export function bearerToken(req: Request): string | null {
  const header = req.headers.authorization;
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? '';
}

/** Resolves a bearer token to the signed-in caller, or throws a DomainError (401, 1001, 1003, 1004). */
export interface Authenticator<Caller> {
  authenticate(token: string): Promise<Caller>;
}
