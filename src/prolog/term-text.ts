/**
 * A term's quoted text for messages, bounded: printing walks the term (the work meter ticks), so a
 * huge or cyclic term prints as a note instead of hanging the host, and the text is capped.
 */
import { setWorkMeter, type TauTerm } from '#prolog-vm';
import { capErrorText } from '../lua/error-text.js';
import { quotedText } from './json-terms.js';

/** Term nodes printed at most for one message. */
const MAX_PRINT_WORK = 200_000;

export function termText(term: TauTerm): string {
  let work = 0;
  setWorkMeter(() => {
    if (++work > MAX_PRINT_WORK) throw new RangeError('term too large to print');
  });
  try {
    return capErrorText(quotedText(term));
  } catch {
    return '(a term too large to print)';
  } finally {
    setWorkMeter(null);
  }
}
