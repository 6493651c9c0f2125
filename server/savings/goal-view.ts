import { toMajor } from '../lib/money';
import { round1 } from './coins';
import { DAY_MS } from './game-economy';
import type { GoalView } from './result-shapes';
import type { GoalDoc, GoalStatus } from './schema';

/** The status a player sees: an open goal past its end date is "expired". */
export function effectiveStatus(goal: GoalDoc, now: number): GoalStatus {
  if ((goal.status === 'active' || goal.status === 'paused') && now >= goal.endDate) return 'expired';
  return goal.status;
}

/** A goal with its progress, as the actions answer it (amounts in major units of its currency). */
export function goalView(goal: GoalDoc, now: number): GoalView {
  const c = goal.currency;
  const completed = goal.status === 'completed';
  const span = Math.max(1, goal.endDate - goal.startDate);
  const elapsed = Math.min(1, Math.max(0, (now - goal.startDate) / span));
  const expected = Math.min(goal.targetAmount, Math.round(goal.targetAmount * elapsed));
  const remaining = Math.max(0, goal.targetAmount - goal.currentAmount);
  const daysLeft = completed ? 0 : Math.max(0, Math.ceil((goal.endDate - now) / DAY_MS));
  const onTrack = completed || goal.currentAmount >= expected;
  return {
    id: goal.id,
    title: goal.title,
    description: goal.description,
    currency: c,
    targetAmount: toMajor(goal.targetAmount, c),
    currentAmount: toMajor(goal.currentAmount, c),
    remainingAmount: toMajor(remaining, c),
    percent: round1((goal.currentAmount / goal.targetAmount) * 100),
    category: goal.category,
    priority: goal.priority,
    isPublic: goal.isPublic,
    status: effectiveStatus(goal, now),
    startDate: goal.startDate,
    endDate: goal.endDate,
    completedAt: goal.completedAt || null,
    daysLeft,
    expectedAmount: toMajor(expected, c),
    onTrack,
    pace: completed ? 'completed' : onTrack ? 'on_track' : 'behind',
    dailyNeeded: completed ? 0 : toMajor(Math.ceil(remaining / Math.max(1, daysLeft)), c),
    contributionCount: goal.contributionCount,
    lastContributionAt: goal.lastContributionAt || null,
    createdAt: goal.createdAt,
    updatedAt: goal.updatedAt,
  };
}
