/** What a meter did with an STS token (contracts TOKEN_RESULTS): the recharge page and its receipt show it. */
export const stsToken = {
  token: 'Token',
  results: {
    accepted: 'Accepted',
    used: 'Already used on this meter',
    old: 'Too old for this meter',
    corrupt: 'Invalid token (mistyped, or for another meter)',
    overflow: 'Credit would exceed the meter’s maximum',
    unsupported: 'Not a credit token',
  },
};
