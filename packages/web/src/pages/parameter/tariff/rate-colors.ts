import type { TouRate } from '@meterdesk/contracts';

/**
 * The rates' colours: Okabe and Ito's palette, told apart with every common colour-vision deficiency,
 * each with the text colour that reads on it. Every segment also writes its rate's number, so no one
 * depends on the colour alone.
 */
export const RATE_COLORS: Readonly<Record<TouRate, { fill: string; text: string }>> = {
  1: { fill: '#0072B2', text: '#FFFFFF' },
  2: { fill: '#E69F00', text: '#000000' },
  3: { fill: '#009E73', text: '#000000' },
  4: { fill: '#CC79A7', text: '#000000' },
};

export const rateColor = (rate: number) => RATE_COLORS[rate as TouRate] ?? { fill: '#BFBFBF', text: '#000000' };
