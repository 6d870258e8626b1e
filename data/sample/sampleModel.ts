/**
 * The complete sample model: plan cells, FI lines, mart and BPC rows.
 */
import { COMPANIES, FX_RATES_E4, PERIODS, rateE4 } from './model.ts';
import { buildBpc, buildConsolidation } from './aggregates.ts';
import { generateFi } from './fi.ts';
import { periodAt, planCells } from './plan.ts';
import type { FxRow, SampleModel } from './types.ts';

/** The complete sample as plain rows (amounts in integer cents). Pure and deterministic. */
export function generateSampleModel(): SampleModel {
  const cells = planCells();
  const { lines, duplicates } = generateFi(cells);
  const consolidation = buildConsolidation(cells, lines);
  const bpc = buildBpc(consolidation);
  const fxRates: FxRow[] = [];
  for (let p = 0; p < PERIODS.length; p++) {
    for (const currency of Object.keys(FX_RATES_E4)) {
      fxRates.push({ fiscper: periodAt(p), currency, rateE4: rateE4(currency, p) });
    }
  }
  // The inbound (acquisition) layer holds every line once; the duplicated delta load
  // happened when propagating to the reporting layer, after everything else was loaded.
  return { companies: COMPANIES, fxRates, fi: [...lines, ...duplicates], fiAcquisition: lines, consolidation, bpc };
}

