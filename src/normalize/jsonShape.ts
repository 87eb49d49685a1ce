/**
 * One pass over a JSON text already known to parse (JSON.parse accepted it), for what JSON.parse
 * loses or cannot bound:
 * - the nesting depth, per top-level item: a body nested 10,000 levels deep parses fine, but any
 *   recursive reader of it would overflow the stack, so bodies deeper than MAX_JSON_DEPTH are
 *   refused before anything reads them (REST and JSON-RPC alike);
 * - for a JSON-RPC body, the raw text of each request's numeric `id` (the top-level object's, or
 *   each batch item's): JSON.parse turns `9007199254740993` into `9007199254740992` and `1e400`
 *   into Infinity, while geth echoes an id byte for byte (its id is a json.RawMessage);
 * - whether a request's `params` hold a number no float can hold (`1e309`): JSON.parse makes it
 *   Infinity, which no param accepts and which JSON.stringify would print as `null`.
 * (JSON.parse's reviver sees the source text only from Node 21; this scanner does the job on 20.)
 *
 * It never allocates per value: strings are skipped with indexOf, numbers read only when they are
 * an id or could overflow (an exponent, or more than 300 digits).
 *
 * @example
 * scanJson('[{"id":1E+2,"params":[[[]]]}]').items[0] // { id: '1E+2', depth: 4, paramsDepth: 3, paramsNonFinite: false }
 */

/** the deepest nesting a request body may have (arrays and objects, the outermost counting 1) */
export const MAX_JSON_DEPTH = 64

export interface ScannedItem {
  /** the raw text of a numeric `id` member (undefined: no id, or not a number) */
  id?: string
  /** the deepest nesting inside the item, the item itself counting 1 */
  depth: number
  /** the deepest nesting inside its `params` member, the params array counting 1 */
  paramsDepth: number
  /** a number in `params` beyond what a float holds (JSON.parse made it ±Infinity) */
  paramsNonFinite: boolean
}

export interface ScannedJson {
  /** the deepest nesting of the whole text */
  depth: number
  /** a top-level array (a batch): one entry per element; an object: one entry; else none */
  items: ScannedItem[]
}

enum C {
  QUOTE = 34,
  BACKSLASH = 92,
  OPEN_OBJ = 123,
  CLOSE_OBJ = 125,
  OPEN_ARR = 91,
  CLOSE_ARR = 93,
  COMMA = 44,
  COLON = 58,
  MINUS = 45,
}

const isNumberChar = (ch: number) => (ch >= 48 && ch <= 57) || ch === 45 || ch === 43 || ch === 46 || ch === 101 || ch === 69

// long: one pass over every character of a request body, a state machine whose state (depth,
// the request being read, its member, where its params start) lives in locals: split into
// functions, that state would move into an object read and written on every character
export function scanJson(text: string): ScannedJson {
  const n = text.length
  const out: ScannedJson = { depth: 0, items: [] }
  // container kinds, innermost last: true for an object
  const objects: boolean[] = []
  let depth = 0
  let batch = false
  /** the entry of the batch element (or the single request) being read */
  let entry: ScannedItem | undefined
  /** the depth of a request object's members: 1 for a single request, 2 in a batch; -1: not in one */
  let itemDepth = -1
  let expectKey = false
  /** the member of the current request whose value comes next */
  let member: 'id' | 'params' | undefined
  /** depth of the current request's params value (0: not inside params) */
  let paramsAt = 0
  /** a value starts at the top level of a batch: it is the next element */
  const element = () => {
    if (batch && depth === 1 && !entry) {
      entry = { depth: 0, paramsDepth: 0, paramsNonFinite: false }
      out.items.push(entry)
    }
  }
  for (let i = 0; i < n; i++) {
    const ch = text.charCodeAt(i)
    switch (ch) {
      case C.QUOTE: {
        element()
        const end = stringEnd(text, i)
        if (expectKey) {
          expectKey = false
          if (depth === itemDepth) {
            const raw = text.slice(i + 1, end)
            const key = raw.includes('\\') ? (JSON.parse(text.slice(i, end + 1)) as string) : raw
            member = key === 'id' ? 'id' : key === 'params' ? 'params' : undefined
            if (member === 'id') entry!.id = undefined
          }
        } else if (depth === itemDepth) member = undefined
        i = end
        break
      }
      case C.OPEN_OBJ:
      case C.OPEN_ARR: {
        if (depth === 0 && ch === C.OPEN_ARR) batch = true
        element()
        if (depth === 0 && ch === C.OPEN_OBJ) out.items.push((entry = { depth: 0, paramsDepth: 0, paramsNonFinite: false }))
        depth++
        objects.push(ch === C.OPEN_OBJ)
        expectKey = ch === C.OPEN_OBJ
        if (depth > out.depth) out.depth = depth
        if (entry) {
          const base = batch ? 1 : 0
          if (depth === base + 1 && ch === C.OPEN_OBJ) itemDepth = depth
          if (depth - base > entry.depth) entry.depth = depth - base
          if (depth === itemDepth + 1 && member === 'params') paramsAt = depth
          if (paramsAt && depth - paramsAt + 1 > entry.paramsDepth) entry.paramsDepth = depth - paramsAt + 1
        }
        break
      }
      case C.CLOSE_OBJ:
      case C.CLOSE_ARR:
        if (depth === paramsAt) paramsAt = 0
        if (depth === itemDepth) {
          itemDepth = -1
          member = undefined
        }
        depth--
        objects.pop()
        expectKey = false
        if (batch && depth === 1) entry = undefined
        break
      case C.COMMA:
        expectKey = objects[objects.length - 1] === true
        if (depth === itemDepth) member = undefined
        if (batch && depth === 1) entry = undefined
        break
      case C.COLON:
        break
      default: {
        if (ch <= 32) break // whitespace
        element()
        if (!(ch === C.MINUS || (ch >= 48 && ch <= 57))) {
          // true / false / null: read to its end (its letters never start a number)
          if (depth === itemDepth) member = undefined
          while (i + 1 < n && text.charCodeAt(i + 1) >= 97 && text.charCodeAt(i + 1) <= 122) i++
          if (batch && depth === 1) entry = undefined
          break
        }
        let end = i + 1
        let plain = true
        while (end < n && isNumberChar(text.charCodeAt(end))) {
          const c = text.charCodeAt(end)
          if (c === 101 || c === 69) plain = false
          end++
        }
        if (depth === itemDepth && member === 'id') entry!.id = text.slice(i, end)
        if (paramsAt && (!plain || end - i > 300) && !Number.isFinite(Number(text.slice(i, end)))) entry!.paramsNonFinite = true
        if (depth === itemDepth) member = undefined
        if (batch && depth === 1) entry = undefined
        i = end - 1
      }
    }
  }
  return out
}

/** index of the quote closing the string that opens at `start` */
function stringEnd(text: string, start: number): number {
  let j = text.indexOf('"', start + 1)
  for (;;) {
    let k = j - 1
    while (text.charCodeAt(k) === C.BACKSLASH) k--
    // an even run of backslashes before it: the quote is not escaped
    if ((j - 1 - k) % 2 === 0) return j
    j = text.indexOf('"', j + 1)
  }
}
