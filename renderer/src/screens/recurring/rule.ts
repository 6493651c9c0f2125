import type { ResultOf } from '../../api/client';

/** A recurring rule as recurring.query lists it. */
export type RecurringRule = ResultOf<'recurring.query'>['list'][number];
