import type { ResultOf } from '../../api/client';

/** A recurring item as recurring.query lists it. */
export type RecurringItem = ResultOf<'recurring.query'>['list'][number];
