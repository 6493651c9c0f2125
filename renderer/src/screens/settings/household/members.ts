import type { ResultOf } from '../../../api/client';

/** The household as user.listMembers returns it, and one of its accounts. */
export type Household = ResultOf<'user.listMembers'>;
export type Member = Household['members'][number];
