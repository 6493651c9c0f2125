/**
 * The colour class of a price change or a profit in the market: `pp-up` for a rise (and zero),
 * `pp-down` for a fall. Which colour each is follows the UI language (styles/market.css): green
 * up and red down in English, red up and green down in Chinese, as Chinese markets show them
 * (issue 36, finding 17).
 */
export function marketTone(change: number): 'pp-up' | 'pp-down' {
  return change >= 0 ? 'pp-up' : 'pp-down';
}
