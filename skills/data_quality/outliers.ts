/**
 * Judges the period totals of one series with two rules an analyst can check by hand:
 * - robust score: the period's distance from the median in robust standard deviations
 *   (1.4826 × the median absolute deviation, MAD: Iglewicz and Hoaglin's modified z-score), so
 *   one or two extreme periods cannot hide themselves by inflating the spread, as they would
 *   with a mean and a standard deviation;
 * - below half the median: the period fell under half the series' typical level (or to zero,
 *   or past it: a profitable company's month at a loss) and scores at least one less than the
 *   threshold. On twelve seasonal months the spread is wide, so such a month can score just under
 *   the robust cut-off (a result of about 190k with one month at −8k scores 3.4): this rule
 *   names what the score misses. Only the low side: a seasonal peak can be double a quiet month.
 */
import { roundAmount } from '../../src/skills/api.ts';

export interface SeriesPoint {
  period: string;
  value: number;
  records: number;
  loads: number | undefined;
}

/** The rules that can flag a period; `flaggedBy` says which did, and at which threshold. */
export type OutlierRule = 'robust_score' | 'below_half_median';

export interface RuleHit {
  rule: OutlierRule;
  /** |score|. */
  measured: number;
  /** The cut-off `measured` reached. */
  threshold: number;
  /** below_half_median: value / median (under 0.5; 0 or negative when the period is at zero or past it). */
  share_of_median?: number;
}

export interface ScoredPoint extends SeriesPoint {
  /** value − median. */
  deviation: number;
  /** |deviation| / |median| × 100, signed like the deviation; null when the median is 0. */
  deviationPercent: number | null;
  /** deviation / scale; 0 when the series is constant. */
  score: number;
  flagged: boolean;
  /** The rules that flagged the period (empty when it is not flagged). */
  flaggedBy: RuleHit[];
  /** The range no rule flags: median ∓ the larger of threshold × scale and the minimum percent, narrowed toward zero by below_half_median. */
  low: number;
  high: number;
}

export type ScaleMethod = 'mad' | 'mean_absolute_deviation' | 'constant';

export interface SeriesScore {
  median: number;
  /** Robust standard deviation: 1.4826 × MAD (or 1.2533 × the mean absolute deviation when more than half the periods are equal). */
  scale: number;
  method: ScaleMethod;
  points: ScoredPoint[];
}

/** The cut-offs of the rules (see limits.ts for the defaults and why). */
export interface OutlierRules {
  /** |robust score| from which a period is flagged. */
  threshold: number;
  /** The robust score flags a period only when it is also at least this many percent from the median. */
  minDeviationPercent: number;
  /** below_half_median: |robust score| from which a period under half the median is flagged; Infinity turns the rule off. */
  halfMedianThreshold: number;
}

/** below_half_median applies to periods whose value / median is under this share. */
export const HALF_MEDIAN_SHARE = 0.5;

/** 1 / Φ⁻¹(3/4): makes the MAD estimate the standard deviation of normal data. */
const MAD_TO_SIGMA = 1.4826;
/** √(π/2): the same for the mean absolute deviation. */
const MEAN_AD_TO_SIGMA = 1.2533;

/**
 * The median of some numbers (NaN for none).
 * @example
 * median([4, 1, 3, 2]) // 2.5
 */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((x, y) => x - y);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * Scores every period of one series and flags it by either rule. The robust score flags a
 * period when |score| ≥ threshold and it is also at least `minDeviationPercent` away from the
 * median (so a near-constant series does not flag small wobbles); below_half_median flags a
 * period under half the median (value / median < 0.5) from |score| ≥ halfMedianThreshold.
 * Either way it must be off by a cent.
 * @example
 * const points = [148, 181, 225, 188, 220, 185, 139, 113, 325, 286, -8, 192].map((value, i) => ({ period: String(i), value, records: 1, loads: undefined }));
 * scoreSeries(points, { threshold: 3.5, minDeviationPercent: 10, halfMedianThreshold: 2.5 }).points[10]!.flaggedBy[0]!.rule // 'below_half_median'
 */
export function scoreSeries(points: readonly SeriesPoint[], rules: OutlierRules): SeriesScore {
  const values = points.map((p) => p.value);
  const center = median(values);
  const deviations = values.map((v) => Math.abs(v - center));
  const mad = median(deviations);
  const meanDeviation = deviations.reduce((sum, d) => sum + d, 0) / Math.max(1, deviations.length);
  let scale = 0;
  let method: ScaleMethod = 'constant';
  if (mad > 1e-9) {
    scale = MAD_TO_SIGMA * mad;
    method = 'mad';
  } else if (meanDeviation > 1e-9) {
    scale = MEAN_AD_TO_SIGMA * meanDeviation;
    method = 'mean_absolute_deviation';
  }
  // The expected range: what neither rule flags. Toward zero, below_half_median reaches in first.
  const reach = Math.max(rules.threshold * scale, (rules.minDeviationPercent / 100) * Math.abs(center));
  const towardZero = Math.min(reach, Math.max(rules.halfMedianThreshold * scale, HALF_MEDIAN_SHARE * Math.abs(center)));
  const low = center - (center > 0 ? towardZero : reach);
  const high = center + (center < 0 ? towardZero : reach);
  const scored = points.map((point) => {
    const deviation = point.value - center;
    const score = scale > 0 ? deviation / scale : 0;
    const relative = center === 0 ? null : (Math.abs(deviation) / Math.abs(center)) * 100;
    const material = Math.abs(deviation) >= 0.005;
    const flaggedBy: RuleHit[] = [];
    if (material && Math.abs(score) >= rules.threshold && (relative === null || relative >= rules.minDeviationPercent)) {
      flaggedBy.push({ rule: 'robust_score', measured: round2(Math.abs(score)), threshold: rules.threshold });
    }
    const share = center === 0 ? null : point.value / center;
    if (material && share !== null && share < HALF_MEDIAN_SHARE && Math.abs(score) >= rules.halfMedianThreshold) {
      flaggedBy.push({ rule: 'below_half_median', measured: round2(Math.abs(score)), threshold: rules.halfMedianThreshold, share_of_median: round2(share) });
    }
    return {
      ...point,
      deviation: roundAmount(deviation),
      deviationPercent: relative === null ? null : Math.round(Math.sign(deviation) * relative * 100) / 100,
      score: round2(score),
      flagged: flaggedBy.length > 0,
      flaggedBy,
      low: roundAmount(low),
      high: roundAmount(high),
    };
  });
  return { median: roundAmount(center), scale: roundAmount(scale), method, points: scored };
}

/**
 * One rule hit in words, for tables and findings.
 * @example
 * ruleText({ rule: 'robust_score', measured: 4.25, threshold: 3.5 }) // 'robust score 4.25 ≥ 3.5'
 * ruleText({ rule: 'below_half_median', measured: 3.05, threshold: 2.5, share_of_median: 0.34 }) // 'below half the median (0.34 × the median; under 0.5) with robust score 3.05 ≥ 2.5'
 */
export function ruleText(hit: RuleHit): string {
  if (hit.rule === 'robust_score') return `robust score ${hit.measured} ≥ ${hit.threshold}`;
  const share = hit.share_of_median ?? 0;
  const where = share === 0 ? 'at zero' : `${share} × the median${share < 0 ? ', past zero' : ''}`;
  return `below half the median (${where}; under ${HALF_MEDIAN_SHARE}) with robust score ${hit.measured} ≥ ${hit.threshold}`;
}

/**
 * A rule hit in a few words, with its threshold, for lists of flagged periods.
 * @example
 * ruleShort({ rule: 'below_half_median', measured: 3.43, threshold: 2.5, share_of_median: -0.05 }) // 'below half the median, score ≥ 2.5'
 */
export function ruleShort(hit: RuleHit): string {
  return `${hit.rule === 'robust_score' ? 'robust' : 'below half the median,'} score ≥ ${hit.threshold}`;
}

const round2 = (value: number) => Math.round(value * 100) / 100;
