/**
 * The offline model's own words: the English that carries no constraint (filler), and the
 * few intents every question form shares (why, net, thanks, what-can-you-do, actions it must
 * refuse, questions about meaning). Business vocabulary is not here: it lives in the catalog
 * (names, synonyms, value labels) and in the skills' question forms.
 */

/** Words that never change which figure is asked for. Anything else it cannot place is asked back. */
export const fillerWords = new Set(
  `a an the this that these those there here it its it's they them their we us our you your i me my mine he she
   is are was were be been being am do does did doing done have has had having get got gets getting
   what what's which who whom whose when where how why whats whos
   of in on at by to for from with within into onto per as about over under across through during between via
   and or but nor so also too then than else just only even still yet again all any each every both either
   some such own same other another more most less much many few lot lots
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
   up down out off
   like as well
   one two
   whole year-round no not group three four both
   doesn't don't isn't aren't didn't shouldn't won't can't wasn't weren't hasn't haven't couldn't wouldn't
   whats made make makes making although though however while whereas because since bucket zero
   add adds added adding so much way far looks looked off seems going on here
   ok okay hmm
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
]);

/** Phrases that ask for a change wherever they stand ("a correcting entry"). */
export const actionPhrases = ['correcting entry', 'correction entry', 'journal entry', 'reversal entry', 'write back', 'writeback', 'make a booking', 'book an adjustment', 'post an adjustment'];

/** Words allowed before an action verb ("could you please delete …"). */
export const actionLeadIns = new Set(['please', 'can', 'could', 'would', 'will', 'you', 'kindly', 'i', 'we', 'want', 'need', 'to', "let's", 'lets', 'let', 'us', 'go', 'ahead', 'and', 'now', 'then', 'also', 'should', 'just', 'quickly', 'pls', 'ok', 'okay', 'so', 'help', 'me']);

/** Words that mark grouping: "by company", "per month", "split by account", "breakdown". */
export const groupMarkers = ['by', 'per', 'for each', 'each', 'split', 'split by', 'broken down by', 'break down by', 'breakdown', 'breakdown by', 'grouped by', 'group by', 'across'];

/** Relative periods the data cannot place without a date of its own: asked back. */
export const relativePeriodPhrases = ['last quarter', 'this quarter', 'last month', 'this month', 'previous month', 'prior month', 'current month', 'last year', 'this year', 'previous year', 'prior year', 'current year', 'current period', 'last period', 'previous period', 'previous quarter', 'prior quarter', 'yesterday', 'today', 'last week', 'this week', 'recently', 'latest'];
