/**
 * Robust scoring of period totals: each period of a series is compared with the median of the
 * series, in units of the median absolute deviation (Iglewicz and Hoaglin's modified z-score),
 * so one or two extreme periods cannot hide themselves by inflating the spread, as they would
 * with a mean and a standard deviation.
 */
import { roundAmount } from '../../src/skills/api.ts';

export interface SeriesPoint {
  period: string;
  value: number;
  records: number;
  loads: number | undefined;
}

export interface ScoredPoint extends SeriesPoint {
  /** value − median. */
  deviation: number;
  /** |deviation| / |median| × 100, signed like the deviation; null when the median is 0. */
  deviationPercent: number | null;
  /** deviation / scale; 0 when the series is constant. */
  score: number;
  flagged: boolean;
  /** median ∓ threshold × scale: values inside are not flagged. */
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

/** 1 / Φ⁻¹(3/4): makes the MAD estimate the standard deviation of normal data. */
const MAD_TO_SIGMA = 1.4826;
/** √(π/2): the same for the mean absolute deviation. */
const MEAN_AD_TO_SIGMA = 1.2533;

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((x, y) => x - y);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * Scores every period of one series. A period is flagged when |score| ≥ threshold and it is
 * also at least `minDeviationPercent` away from the median (so a near-constant series does not
 * flag cent-sized wobbles), and off by at least a cent.
 */
export function scoreSeries(points: readonly SeriesPoint[], threshold: number, minDeviationPercent: number): SeriesScore {
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
  const scored = points.map((point) => {
    const deviation = point.value - center;
    const score = scale > 0 ? deviation / scale : 0;
    const relative = center === 0 ? null : (Math.abs(deviation) / Math.abs(center)) * 100;
    const flagged = Math.abs(score) >= threshold && Math.abs(deviation) >= 0.005 && (relative === null || relative >= minDeviationPercent);
    return {
      ...point,
      deviation: roundAmount(deviation),
      deviationPercent: relative === null ? null : Math.round(Math.sign(deviation) * relative * 100) / 100,
      score: Math.round(score * 100) / 100,
      flagged,
      low: roundAmount(center - threshold * scale),
      high: roundAmount(center + threshold * scale),
    };
  });
  return { median: roundAmount(center), scale: roundAmount(scale), method, points: scored };
}
