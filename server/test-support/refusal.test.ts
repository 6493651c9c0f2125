import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commonErrors } from '../lib/errors';
import { ledgerErrors } from '../ledger/errors';
import { usersErrors } from '../users/errors';
import { expectRefusal } from './refusal';
import { registerUser, startTestServer, type TestServer } from './test-server';

const assetMissing = { status: 404, code: 2001, message: 'Asset not found.', data: { reason: 'ledger.assetNotFound', args: [] } };
const badAmount = { status: 400, code: 400, message: 'params.amount must be number', data: { field: 'params.amount', rule: { keyword: 'type', type: 'number' } } };

describe('expectRefusal', () => {
  it('passes on the answer of its row: code, status and reason', () => {
    expectRefusal(assetMissing, ledgerErrors.rows.assetNotFound);
    expectRefusal(badAmount, commonErrors.rows.invalid);
    expectRefusal(badAmount, commonErrors.rows.invalid, { field: 'params.amount' });
  });

  it('fails on a wrong code, naming the expected reason and showing the answer', () => {
    expect(() => expectRefusal({ ...assetMissing, code: 3001 }, ledgerErrors.rows.assetNotFound)).toThrow(/ledger\.assetNotFound \(404 2001\); got 404 3001 "Asset not found\."/);
  });

  it('fails on a wrong status', () => {
    expect(() => expectRefusal({ ...assetMissing, status: 200 }, ledgerErrors.rows.assetNotFound)).toThrow(/ledger\.assetNotFound.*got 200 2001/);
  });

  it('fails on a wrong reason, even where code and status agree', () => {
    // userNotFound, tokenUserNotFound and memberNotFound share 1001/404: only the reason tells them apart.
    const userMissing = { status: 404, code: 1001, message: 'User not found.', data: { reason: 'users.userNotFound', args: [] } };
    expectRefusal(userMissing, usersErrors.rows.userNotFound);
    expect(() => expectRefusal(userMissing, usersErrors.rows.memberNotFound)).toThrow(/users\.memberNotFound/);
    expect(() => expectRefusal({ ...userMissing, data: null }, usersErrors.rows.userNotFound)).toThrow(/users\.userNotFound/);
  });

  it('fails when a shared row is expected and a domain row answered with the same code and status', () => {
    const currency = { status: 400, code: 400, message: 'Unknown currency "ZZZ".', data: { reason: 'ledger.unknownCurrency', args: ['ZZZ'] } };
    expectRefusal(currency, ledgerErrors.rows.unknownCurrency);
    expect(() => expectRefusal(currency, commonErrors.rows.invalid)).toThrow(/common\.invalid \(no reason\)/);
  });

  it('fails on a wrong field, and on a row of no catalogue', () => {
    expect(() => expectRefusal(badAmount, commonErrors.rows.invalid, { field: 'params.asset' })).toThrow(/common\.invalid/);
    expect(() => expectRefusal(badAmount, { code: 400, status: 400 })).toThrow(/in no catalogue/);
  });

  it('starts its failure message with the label of the case', () => {
    expect(() => expectRefusal(assetMissing, ledgerErrors.rows.recordNotFound, { label: 'asset.detail' })).toThrow(/^asset\.detail: expected the refusal ledger\.recordNotFound/);
  });
});

describe('expectRefusal on a real server', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t.close());

  it('reads the answers of t.api', async () => {
    const u = await registerUser(t);
    expectRefusal(await t.api('asset.detail', { id: 'nope' }, u.token), ledgerErrors.rows.assetNotFound);
    expectRefusal(await t.api('asset.query', { pageSize: 201 }, u.token), commonErrors.rows.invalid, { field: 'params.pageSize' });
  });
});
