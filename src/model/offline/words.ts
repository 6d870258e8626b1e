/**
 * The offline model's own words: the English that carries no constraint (filler), and the
 * few intents every question form shares (why, net, thanks, what-can-you-do, actions it must
 * refuse, questions about meaning). Business vocabulary is not here: it lives in the catalog
 * (names, synonyms, value labels) and in the skills' question forms.
 */

/**
 * The project's own filler: short forms, contractions and chat words no dictionary lists
 * ("pls", "vs", "doesn't"), and everyday words it wants read as filler even where the word
 * list (lexicon.ts) would not have them. Ordinary English comes from the word list; the
 * closed list `meaningWords` below is never filler.
 */
export const fillerWords = new Set(
  `a an the this that these those there here it its it's they them their we us our you your i me my mine he she
   is are was were be been being am do does did doing done have has had having get got gets getting
   what what's which who whom whose when where how why whats whos
   of in on at by to for from with within into onto per as about over under across through during between via
   and or but nor so also too then else just even still yet again all any both either
   some such own same other another more less much many few lot lots
   please pls kindly can could would will shall should may might must let lets let's need needs want wants wanted
   show shows shown tell give gives list lists display see look looking find found pull bring provide report reported reporting
   me us know check checked see seeing seen view
   total totals sum sums summed overall whole entire complete net gross altogether combined aggregate aggregated
   number numbers amount figure value values level levels
   is it right correct exactly actually really roughly approximately just
   data dataset numbers info information details detail
   book booked posted recorded held holds hold contain contains containing stored sit sits
   now currently today so far please thanks
   our the company's
   vs versus
   up down out
   like as well
   one two
   whole year-round no group three four both
   doesn't don't isn't aren't didn't shouldn't won't can't wasn't weren't hasn't haven't couldn't wouldn't
   whats made make makes making although though however while whereas because since bucket zero
   add adds added adding so much way far looks looked seems going on here
   ok okay hmm
   fiscal
   please could you can you would you
   figure out
   tell me
   go ahead
   line lines row rows record records entry entries item items posting postings booking bookings transaction transactions
   available exist exists existing there's anything something everything
   happen happened happening going look looks seem seems`
    .split(/\s+/)
    .filter(Boolean),
);

/** Words that make a question a follow-up of the one before ("and for 2000?", "same for Q2"). */
export const followUpOpeners = new Set(['and', 'same', 'now', 'also', 'then', 'ok', 'okay', 'but', 'again', 'plus']);

/** Intents every form can read, with their phrases. Forms add their own (see QuestionForm.intents). */
export const coreIntents: Record<string, string[]> = {
  why: ['why', 'explain', 'explains', 'explained', 'behind', "what's behind", 'whats behind', 'explanation', 'cause', 'causes', 'caused', 'causing', 'reason', 'reasons', 'driver', 'drivers', 'drove', 'drives', 'driving', 'driven', 'root cause', 'how come', 'what happened', 'where does', 'where do', 'account for', 'accounts for', 'come from', 'comes from'],
  net: ['out of balance', 'not balanced', 'unbalanced', "doesn't balance", 'net to zero', 'nets to zero', 'net out', 'nets out', 'netting', 'net off', 'balance out', 'balances out', 'offset', 'offsets', 'eliminate', 'eliminates', 'elimination', 'eliminations'],
  thanks: ['thanks', 'thank', 'thank you', 'thx', 'cheers', 'great', 'perfect', 'cool', 'nice', 'awesome', 'hello', 'hi', 'hey', 'good morning', 'good afternoon', 'appreciated', 'helpful'],
  capabilities: ['what can you do', 'what else can you do', 'what can you answer', 'what do you do', 'help', 'help with', 'what questions', 'capabilities', 'how can you help', 'who are you', 'who am i talking to', 'who is this', 'what are you'],
  meaning: ['mean', 'means', 'meaning', 'definition', 'define', 'defined', 'stand for', 'stands for', 'concept', 'purpose', 'in general', 'work', 'works', 'handled', 'difference between'],
  trend: ['trend', 'trends', 'development', 'evolution', 'over time', 'month by month', 'month over month', 'monthly'],
};

/** Verbs of requests to change data: refused plainly, whatever follows them. */
export const actionVerbs = new Set([
  'post', 'book', 'delete', 'remove', 'correct', 'fix', 'reload', 'load', 'insert', 'update', 'change', 'adjust', 'reverse',
  'cancel', 'create', 'write', 'enter', 'modify', 'drop', 'truncate', 'approve', 'overwrite', 'edit', 'purge', 'rerun',
  'repost', 'restate', 'undo', 'replace', 'upload', 'import', 'send', 'email', 'schedule',
  'assign', 'reassign', 'allocate', 'reallocate', 'reclassify', 'reclass', 'transfer', 'move', 'set', 'clear', 'merge',
  'rename', 'release', 'lock', 'unlock', 'submit', 'store', 'save', 'export', 'close', 'reopen', 'rebook',
]);

/** Phrases that ask for a change wherever they stand ("a correcting entry"). */
export const actionPhrases = ['correcting entry', 'correction entry', 'journal entry', 'reversal entry', 'write back', 'writeback', 'make a booking', 'book an adjustment', 'post an adjustment'];

/** Words allowed before an action verb ("could you please delete …"). */
export const actionLeadIns = new Set(['please', 'can', 'could', 'would', 'will', 'you', 'kindly', 'i', 'we', 'want', 'need', 'to', "let's", 'lets', 'let', 'us', 'go', 'ahead', 'and', 'now', 'then', 'also', 'should', 'just', 'quickly', 'pls', 'ok', 'okay', 'so', 'help', 'me']);

/** Words that mark grouping: "by company", "per month", "split by account", "breakdown". */
export const groupMarkers = ['by', 'per', 'for each', 'each', 'by each', 'every', 'for every', 'in every', 'in each', 'split', 'split by', 'split out', 'broken down', 'broken down by', 'break', 'break down', 'break down by', 'breakdown', 'breakdown by', 'breakdowns', 'grouped by', 'group by', 'across', 'which', 'in which'];

/**
 * Group markers that ask for a breakdown on their own ("the segment split", "break it down per
 * account": "break" alone too, as "down" may come later):
 * when they group by no dimension, the question is asked back. "by" and "across" that group
 * nothing are prepositions ("booked by", "by December"), not a breakdown.
 */
export const breakdownMarkers = new Set(groupMarkers.filter((marker) => !['by', 'across', 'grouped by', 'group by', 'which', 'in which'].includes(marker)));

/** Relative periods the data cannot place without a date of its own: asked back. */
export const relativePeriodPhrases = ['last quarter', 'this quarter', 'last month', 'this month', 'previous month', 'prior month', 'current month', 'last year', 'this year', 'previous year', 'prior year', 'current year', 'current period', 'last period', 'previous period', 'previous quarter', 'prior quarter', 'yesterday', 'today', 'tomorrow', 'next month', 'next quarter', 'next year', 'last week', 'this week', 'recently', 'latest'];

/** Kinds of meaning-changing words, and what the offline model says when one stops it. */
export const meaningKinds = {
  exclusion: 'leaves something out',
  ranking: 'asks for a ranking',
  comparison: 'asks for a comparison',
  breakdown: 'asks for a breakdown',
  arithmetic: 'asks for a calculation',
  relative_time: 'ties the period to a date I would have to assume',
} as const;

export type MeaningKind = keyof typeof meaningKinds;

/**
 * The closed list of words that change which figure is asked for. Ordinary English is filler
 * (lexicon.ts); these never are. Each reaches the question forms only when the vocabulary
 * reads it: as a form's intent phrase (a form declares "top" → it answers rankings), as a
 * group marker that groups by a dimension ("per account", "the segment split"), as a catalog
 * name, or inside a period ("the last quarter of 2024"). Anything left is asked back, naming
 * the word. Two are read in context (meaning.ts): "not" negates a figure only before a scope
 * ("not in BPC", "not company 1000"; "does not match" is a yes/no question), and "only"
 * only before a source ("only in FI"). "share" is arithmetic as "share of" / "what share";
 * "than" compares unless a comparison phrase took it ("higher than") or it follows "different"
 * or "rather". Ordinals pick one of several ("the second load request"), except in periods
 * ("the first half", "the second quarter"), which the period reader takes first.
 */
export const meaningWords: Record<MeaningKind, string[]> = {
  exclusion: ['without', 'excluding', 'exclude', 'excludes', 'excluded', 'except', 'except for', 'other than', 'apart from', 'aside from', 'besides', 'minus', 'not', 'only', 'ex'],
  ranking: ['top', 'bottom', 'highest', 'lowest', 'largest', 'smallest', 'biggest', 'greatest', 'most', 'least', 'max', 'maximum', 'min', 'minimum', 'rank', 'ranked', 'ranking', 'best', 'worst', 'peak', 'first', 'second', 'third', 'fourth', 'fifth', '1st', '2nd', '3rd', '4th', '5th'],
  comparison: ['above', 'below', 'more than', 'less than', 'fewer than', 'greater than', 'at least', 'at most', 'apart', 'differ', 'differs', 'differed', 'differing', 'disagree', 'disagrees', 'disagreed', 'disagreeing', 'off', 'exceed', 'exceeds', 'exceeded', 'exceeding', 'than'],
  breakdown: [...breakdownMarkers, 'quarterly', 'weekly', 'daily', 'yearly', 'annually'],
  arithmetic: ['average', 'averages', 'averaged', 'avg', 'mean', 'median', 'share', 'percent', 'per cent', 'percentage', 'percentages', 'proportion', 'ratio', 'ratios', 'growth', 'grow', 'grows', 'grew', 'grown', 'margin', 'margins', 'cumulative', 'cumulated', 'running total'],
  relative_time: [...relativePeriodPhrases, 'since', 'before', 'after', 'ago', 'recent', 'latest', 'newest', 'last', 'next', 'previous', 'prior', 'so far'],
};

/** Number words a ranking counts with ("top three accounts"). */
export const numberWords: Record<string, number> = { one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, eleven: 11, twelve: 12, fifteen: 15, twenty: 20 };
