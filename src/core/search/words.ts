/**
 * A small English vocabulary of words people put in domain names, used only to split a run-together
 * label into words (`bestcoffeeshop` → best, coffee, shop) so the generator can offer the hyphenated
 * form. It is deliberately short and clean: a split is offered only when every piece is a known
 * word, so an unknown word is left whole rather than cut into nonsense.
 */
const VOCABULARY = `
my get the try go best top new next one all big little small good great happy love life live living
shop shops store stores online web net app apps cloud tech data home house homes car cars auto bike bikes
food cafe coffee tea bar pizza burger bakery bread cake cakes book books blog news media music art arts
design designs studio photo photos video videos film films game games play fun kids kid baby pet pets dog dogs
cat cats garden gardens green eco energy solar power water fire sun moon star stars sky blue red black white
gold silver city town land world global local travel tour tours trip trips hotel hotels beach sea ocean lake
river mountain park fit fitness gym health care doctor dental clinic spa beauty hair fashion style wear shoes
jewelry gift gifts deal deals sale sales market mart trade money pay bank finance fund invest coin law legal
tax job jobs work team group club hub lab labs box point zone space place spot base line link now fast easy
smart simple pro expert experts exchange change free first hello family friend friends school learn academy
code dev soft software digital social mail host hosting domain domains site sites page pages print sign signs
build builder builders repair service services solution solutions system systems consulting marketing agency
partner partners company real estate rent rental buy sell wine beer kitchen chef taste fresh farm farms organic
yoga run ride sport sports golf ski surf fish fishing camp camping wood stone steel tool tools part parts motor
truck trucks fly air jet sound radio show shows event events party wedding mom dad studio craft crafts
clean cleaning plumbing electric light lights paint home office health insurance dream dreams vision idea ideas
north south east west central united royal urban village country street road way path bridge tower
coach coaching career talent mind body soul heart peace joy kind true pure wild free open bright
`;

/** Compound words whose pieces are also known words: kept whole so they are never split into nonsense. */
const WHOLE_WORDS = `
carpet carpets together season seasons office offices parking password passwords someone something everyone
homework network networks website websites database online software hardware weekend airport starbucks
sunset sunrise payroll landmark landmarks cartoon cartoons teamwork workshop workshops booking bookings
townhouse playground skyline goldfish starfish seafood firework fireworks
`;

const words = (text: string) => text.split(/\s+/).filter((w) => w !== '');
const KNOWN = new Set([...words(VOCABULARY), ...words(WHOLE_WORDS)]);

export function isKnownWord(word: string): boolean {
  return KNOWN.has(word);
}

const MAX_SPLIT_LENGTH = 40;

/**
 * Splits a run-together ASCII label into known words with as few pieces as possible, or returns
 * null when it cannot be split entirely into known words or is itself a known word.
 */
export function splitWords(label: string): string[] | null {
  if (label.length > MAX_SPLIT_LENGTH || !/^[a-z]+$/.test(label) || KNOWN.has(label)) return null;
  // best[i]: fewest words covering label.slice(0, i), with the split point that achieves it.
  const best: Array<{ count: number; from: number } | undefined> = [{ count: 0, from: -1 }];
  for (let end = 1; end <= label.length; end++) {
    for (let start = 0; start < end; start++) {
      const before = best[start];
      if (!before || !KNOWN.has(label.slice(start, end))) continue;
      const current = best[end];
      if (!current || before.count + 1 < current.count) best[end] = { count: before.count + 1, from: start };
    }
  }
  if (!best[label.length]) return null;
  const pieces: string[] = [];
  for (let end = label.length; end > 0; end = best[end]!.from) pieces.unshift(label.slice(best[end]!.from, end));
  return pieces.length >= 2 ? pieces : null;
}
