import type { NextFunction, Request, Response } from 'express';
import type { Settings } from '../config/settings';

/**
 * /api sends no CORS headers unless the calling Origin is listed in
 * settings.network.corsOrigins (docs/security.md). The /send paths have their own `*` policy.
 */
export function apiCors(getSettings: () => Settings) {
  return (req: Request, res: Response, next: NextFunction) => {
    const origin = req.headers.origin;
    if (origin && getSettings().network.corsOrigins.includes(origin)) {
      res.set({
        'Access-Control-Allow-Origin': origin,
        'Access-Control-Allow-Methods': 'POST, OPTIONS',
        'Access-Control-Allow-Headers': 'Authorization, Content-Type',
        'Access-Control-Max-Age': '600',
      });
    }
    res.vary('Origin');
    next();
  };
}
