/** Amounts are reported in currency units, rounded to cents. */

/**
 * Rounds to cents, half away from zero for the cent amounts floating point can hold.
 * @example
 * roundAmount(1.005); // 1.01
 */
export const roundAmount = (value: number) => Math.round((value + Number.EPSILON) * 100) / 100;
