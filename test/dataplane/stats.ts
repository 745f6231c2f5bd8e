// Goodness of fit for the data-plane tests: χ² p-values in closed form for the few degrees of
// freedom they need (a lab service has two or three endpoints).

/** Upper tail of χ² with `df` degrees of freedom (1 or 2). */
export function chiSquarePValue(chi2: number, df: number): number {
  if (df === 2) return Math.exp(-chi2 / 2);
  if (df === 1) return erfc(Math.sqrt(chi2 / 2));
  throw new Error(`df ${df} not supported`);
}

function erfc(x: number): number {
  // Abramowitz–Stegun 7.1.26, |error| < 1.5e-7: ample for a 0.001 threshold.
  const t = 1 / (1 + 0.3275911 * x);
  const y = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  return y * Math.exp(-x * x);
}
