/**
 * Model spend per key (`max_model_tokens_per_day` in the keys file): the tokens each capped key's
 * questions have cost today (UTC), and whether it may ask another. A turn is only ever refused
 * before it starts; one that crosses the cap finishes (an answer is never cut off mid-way) and
 * the next is refused until the next UTC midnight.
 *
 * Kept in memory, per instance, like the rate limit: several instances each allow the cap, and a
 * restart starts the day afresh. Only capped keys are tracked, so memory is bounded by the file.
 */
import type { DeclaredKey } from '../../config/keysFile.ts';

/** Why a key may not ask now: its cap, what it used today, and when the day's budget resets. */
export interface BudgetRefusal {
  maxTokensPerDay: number;
  usedTokens: number;
  /** The next UTC midnight. */
  resetsAt: Date;
  /** Whole seconds until `resetsAt` (at least 1), for `Retry-After`. */
  retryAfterSeconds: number;
}

const DAY_MS = 86_400_000;

export class ModelTokenBudgets {
  /** Tokens spent by each capped key on the UTC day `day` (days since the epoch). */
  private readonly spent = new Map<string, { day: number; tokens: number }>();

  /**
   * `limits`: tokens a UTC day by key name; `now`: the clock (a test's fixed one).
   * @example
   * const budgets = new ModelTokenBudgets(new Map([['dashboards', 50_000]]));
   */
  constructor(
    private readonly limits: ReadonlyMap<string, number>,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * The budgets the keys file declares (keys without `max_model_tokens_per_day` are not capped).
   * @example
   * const budgets = ModelTokenBudgets.of(config.declaredKeys);
   */
  static of(keys: readonly DeclaredKey[], now?: () => Date): ModelTokenBudgets {
    const limits = new Map(keys.flatMap((key) => (key.maxModelTokensPerDay === undefined ? [] : [[key.name, key.maxModelTokensPerDay] as const])));
    return new ModelTokenBudgets(limits, now);
  }

  /**
   * Adds tokens a model call of `key` cost (a key without a cap is not tracked).
   * @example
   * budgets.spend('dashboards', 1_250);
   */
  spend(key: string, tokens: number): void {
    if (!this.limits.has(key) || !(tokens > 0)) return;
    const day = this.today();
    const entry = this.spent.get(key);
    this.spent.set(key, { day, tokens: (entry?.day === day ? entry.tokens : 0) + tokens });
  }

  /**
   * Tokens `key` spent today (UTC), on this instance (0 for a key without a cap: not tracked).
   * @example
   * budgets.usedToday('dashboards'); // 1250
   */
  usedToday(key: string): number {
    const entry = this.spent.get(key);
    return entry?.day === this.today() ? entry.tokens : 0;
  }

  /**
   * Undefined when `key` may ask (no cap, or tokens left today); else why not and until when.
   * @example
   * budgets.refusal('dashboards'); // { maxTokensPerDay: 50000, usedTokens: 50412, resetsAt: 2026-11-27T00:00:00.000Z, retryAfterSeconds: 68400 }
   */
  refusal(key: string): BudgetRefusal | undefined {
    const limit = this.limits.get(key);
    if (limit === undefined) return undefined;
    const used = this.usedToday(key);
    if (used < limit) return undefined;
    const now = this.now().getTime();
    const resetsAt = new Date((Math.floor(now / DAY_MS) + 1) * DAY_MS);
    return { maxTokensPerDay: limit, usedTokens: used, resetsAt, retryAfterSeconds: Math.max(1, Math.ceil((resetsAt.getTime() - now) / 1000)) };
  }

  private today(): number {
    return Math.floor(this.now().getTime() / DAY_MS);
  }
}
