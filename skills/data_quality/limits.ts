/**
 * Result-size limits and fixed rules of the data_quality tools: one result must never flood
 * the model's context, whatever the data size.
 */

/** Duplicate groups find_duplicates lists when the caller gives no limit, and at most. */
export const DEFAULT_DUPLICATE_GROUPS = 20;
export const MAX_DUPLICATE_GROUPS = 100;
/** Record keys listed per duplicate pattern (documents are listed up to the same number). */
export const KEYS_PER_PATTERN = 50;
/** Patterns (places where duplicates sit) returned, and those that get their scope totals. */
export const PATTERNS_SHOWN = 10;
export const PATTERNS_WITH_TOTALS = 3;
/** Values listed per described dimension of a duplicate group. */
export const VALUES_PER_DIMENSION = 10;

/** Example records and context groups find_blank_values lists per dimension. */
export const BLANK_EXAMPLES = 5;
export const BLANK_CONTEXTS = 10;
/**
 * Values that mean "not assigned" rather than a real value, compared exactly: '#' is how SAP BW
 * shows an initial (unassigned) characteristic value when it is extracted as text.
 */
export const PLACEHOLDER_VALUES = ['#'];

/** Series × period totals find_outlier_periods reads at most; beyond that it asks to narrow. */
export const MAX_PERIOD_ROWS = 20_000;
/** Outliers listed when the caller gives no limit, and at most. */
export const DEFAULT_OUTLIERS = 10;
export const MAX_OUTLIERS = 100;
/**
 * Default cut-off of the robust score (Iglewicz and Hoaglin's 3.5 for the modified z-score). Not
 * lower for short series: the MAD of 12 points is itself uncertain, and on 12 months of pure
 * normal noise 3.5 already flags some month in about 1 series in 8 (3.0: 1 in 5).
 */
export const DEFAULT_OUTLIER_THRESHOLD = 3.5;
/**
 * The robust score only flags a period that is also at least this many percent away from the
 * median: in a tight series (personnel expenses) a 5 % move from the exchange rate scores high
 * but is no finding.
 */
export const MIN_DEVIATION_PERCENT = 10;
/**
 * below_half_median flags a period under half the series' median (or at zero, or past it) from a
 * robust score this much lower than the threshold (2.5 by default): on twelve seasonal months
 * the spread is wide, and a month that lost more than half its usual amount is what an analyst
 * asks about first (a missing or reversed load, a loss month of a profitable company). The price:
 * on a noisy series such a month also comes by chance (12 months of normal noise 2 to 3 SDs from
 * zero: about 1 series in 5; `npx tsx scripts/outlierSurvey.ts` prints the rates).
 */
export const HALF_MEDIAN_SCORE_MARGIN = 1;
/** Periods a series needs before its periods can be judged against each other. */
export const MIN_PERIODS = 4;
