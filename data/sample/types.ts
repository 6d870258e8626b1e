/**
 * Row shapes of the sample model (amounts in integer cents, rates in 1/10000).
 */
import type { Company } from './model.ts';

export interface FiLine {
  compcode: string;
  fiscper: string;
  fiscvarnt: string;
  gl_acct: string;
  grpacct: string;
  pcompany: string | null;
  ac_docnr: string;
  docline: number;
  prof_ctr: string | null;
  segment: string | null;
  amountCents: number;
  curkey_lc: string;
  quantity: number | null;
  request_id: string;
}

export interface MartRow {
  compcode: string;
  fiscper: string;
  version: string;
  grpacct: string;
  pcompany: string | null;
  lcCents: number;
  ytdCents: number;
  curkey_lc: string;
  gcCents: number;
}

export interface BpcRow {
  compcode: string;
  fiscper: string;
  version: string;
  scope: string;
  grpacct: string;
  pcompany: string | null;
  audittrail: string;
  lcCents: number;
  curkey_lc: string;
  gcCents: number;
}

export interface FxRow {
  fiscper: string;
  currency: string;
  rateE4: number;
}

export interface SampleModel {
  companies: readonly Company[];
  fxRates: FxRow[];
  /** fi_reporting: every line once, then the duplicated delta load. */
  fi: FiLine[];
  /** fi_acquisition: the inbound layer, every line once (no duplicate). */
  fiAcquisition: FiLine[];
  consolidation: MartRow[];
  bpc: BpcRow[];
}

