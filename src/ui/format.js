// Formatting helpers of the trace viewer (no framework: DOM built with h()).

/** an element: h('span', {class: 'x', title: 't'}, 'text', child) */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag)
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue
    if (k === 'class') el.className = v
    else if (k.startsWith('on')) el.addEventListener(k.slice(2), v)
    else el.setAttribute(k, v === true ? '' : String(v))
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue
    el.append(c instanceof Node ? c : document.createTextNode(String(c)))
  }
  return el
}

export const short = (a) => (a && a.length === 42 ? `${a.slice(0, 6)}…${a.slice(-4)}` : (a ?? ''))

export const big = (hex) => {
  try {
    return hex ? BigInt(hex) : 0n
  } catch {
    return 0n
  }
}

/** 1234567 → "1,234,567" */
export const grouped = (n) => n.toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',')

/** wei → "1.5 ETH" (trailing zeros trimmed) */
export function units(value, decimals = 18, symbol = 'ETH') {
  const neg = value < 0n
  const v = neg ? -value : value
  const base = 10n ** BigInt(decimals)
  const whole = v / base
  let frac = (v % base).toString().padStart(decimals, '0').replace(/0+$/, '')
  if (frac.length > 6) frac = `${frac.slice(0, 6)}…`
  return `${neg ? '-' : ''}${grouped(whole)}${frac ? `.${frac}` : ''}${symbol ? ` ${symbol}` : ''}`
}

/** a decoded value on one line: long hex and strings shortened, title keeps the whole */
export function showValue(v) {
  if (Array.isArray(v)) return `[${v.map(showValue).join(', ')}]`
  if (v && typeof v === 'object')
    return `{${Object.entries(v)
      .map(([k, x]) => `${k}: ${showValue(x)}`)
      .join(', ')}}`
  if (typeof v === 'string' && /^0x[0-9a-f]{40}$/i.test(v)) return short(v)
  if (typeof v === 'string' && v.startsWith('0x') && v.length > 26) return `${v.slice(0, 14)}…${v.slice(-6)}`
  if (typeof v === 'string' && v.length > 48) return JSON.stringify(`${v.slice(0, 46)}…`)
  if (typeof v === 'string' && !/^-?\d+$/.test(v) && !v.startsWith('0x')) return JSON.stringify(v)
  return String(v)
}

export function argsLine(args) {
  return Object.entries(args ?? {})
    .map(([k, v]) => (/^\d+$/.test(k) ? showValue(v) : `${k}: ${showValue(v)}`))
    .join(', ')
}
