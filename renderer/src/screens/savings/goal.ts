import type { ResultOf } from '../../api/client';

/** A savings goal as savings.queryGoals lists it. */
export type Goal = ResultOf<'savings.queryGoals'>['list'][number];
