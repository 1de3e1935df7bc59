import {
  CREDIT_MAX,
  DEFAULT_UNIT_CHARGES,
  type FriendlyTime,
  NO_FRIENDLY_TIME,
  TOKEN_TID_MEMORY,
  type TokenStatus,
} from '@meterdesk/contracts';
import { decodeToken, STS_CREDIT_SUBCLASS, STS_TOKEN_CLASS } from '@meterdesk/contracts/payment/sts';

type Rates = [number, number, number, number];

/**
 * The credit is kept exactly in units of 10⁻⁷ of the currency: a unit charge (10⁻⁴ per kWh) times a
 * rate register's energy (Wh, 10⁻³ kWh). A cent is 10⁵ of them.
 */
export const UNITS_PER_CENT = 100_000;

/**
 * A prepaid meter's money (DLMS classes 112, 113, 115): the credit, drawn down from an anchor (an
 * instant and the rate registers then) by each rate's energy since times its unit charge; the unit
 * charges; overdraft; the friendly time; the token gateway with the TIDs it took. The relay that the
 * credit drives is the device's (device.ts `settlePrepayment`).
 */
export class Prepayment {
  prices: number[] = [...DEFAULT_UNIT_CHARGES];
  overdraftAllowed = false;
  /** Cents; 0 = no limit. */
  overdraftLimit = 0;
  friendly: FriendlyTime = NO_FRIENDLY_TIME;
  /** The TIDs taken, ascending: the newest TOKEN_TID_MEMORY. */
  readonly tids: number[];
  lastToken: string | null = null;
  lastTokenTime: string | null = null;
  status: TokenStatus | null = null;
  /** The credit opened the relay: a recharge closes it again (an operator's disconnect it leaves). */
  relayOpened = false;
  private units: number;
  private anchorMs: number;
  private anchorRates: Rates | null = null;
  private key: string | null = null;

  constructor(
    private readonly decoderKeyOf: () => string,
    openingCents: number,
    now: number,
    tids: readonly number[] = [],
  ) {
    this.units = openingCents * UNITS_PER_CENT;
    this.anchorMs = now;
    this.tids = [...new Set(tids)].sort((a, b) => a - b).slice(-TOKEN_TID_MEMORY);
  }

  /** The exact credit, in units (10⁻⁷ of the currency). */
  get creditUnits(): number {
    return this.units;
  }

  /** Attribute 2 of the credit: whole cents, rounded down. */
  get creditCents(): number {
    return Math.floor(this.units / UNITS_PER_CENT);
  }

  /** Brings the credit to `now`: the energy since the anchor at each rate's charge, when the meter draws. */
  advance(now: number, rates: Rates, drawing: boolean): void {
    if (now < this.anchorMs) return;
    if (drawing && this.anchorRates) {
      const anchor = this.anchorRates;
      this.units -= rates.reduce((sum, r, i) => sum + (r - anchor[i]!) * this.prices[i]!, 0);
    }
    this.anchorMs = now;
    this.anchorRates = rates;
  }

  /** Whether the credit is used up: at zero, or with overdraft at minus its limit (never without one). */
  exhausted(): boolean {
    if (!this.overdraftAllowed) return this.units <= 0;
    return this.overdraftLimit > 0 && this.units <= -this.overdraftLimit * UNITS_PER_CENT;
  }

  /** Method 1 of the token gateway: decode, check, and credit once. */
  enter(value: unknown, deviceTimeIso: string): TokenStatus {
    this.lastToken = typeof value === 'string' ? value : null;
    this.lastTokenTime = deviceTimeIso;
    this.status = this.check(value);
    return this.status;
  }

  private check(value: unknown): TokenStatus {
    if (typeof value !== 'string') return { result: 'corrupt' };
    this.key ??= this.decoderKeyOf();
    const token = decodeToken(this.key, value);
    if (!token.ok) return { result: 'corrupt' };
    const { tid, amount } = token;
    if (token.tokenClass !== STS_TOKEN_CLASS.transfer || token.subclass !== STS_CREDIT_SUBCLASS.electricityCurrency)
      return { result: 'unsupported', tid, amount };
    if (this.tids.includes(tid)) return { result: 'used', tid, amount };
    if (this.tids.length >= TOKEN_TID_MEMORY && tid < this.tids[0]!) return { result: 'old', tid, amount };
    if (this.creditCents + amount > CREDIT_MAX) return { result: 'overflow', tid, amount };
    this.units += amount * UNITS_PER_CENT;
    this.tids.push(tid);
    this.tids.sort((a, b) => a - b);
    if (this.tids.length > TOKEN_TID_MEMORY) this.tids.shift();
    return { result: 'accepted', tid, amount, credit: this.creditCents };
  }
}
