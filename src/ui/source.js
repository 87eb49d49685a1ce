// What the viewer shows of the contracts' own source (POST /v1/sources, verified sources): the
// line a failed frame stopped at, the backtrace of a reverted trace, the warnings of a trace whose
// sources could not all be had.
import { h } from './format.js'

/** `file:line:column` over the line's text (its indentation dropped), a caret under the column */
export function sourceBlock(source) {
  const place = `${source.file}:${source.line}:${source.column}`
  const whole = source.text ?? ''
  const text = whole.trimStart()
  const indent = whole.length - text.length
  // the caret keeps the line's tabs so it lines up under the column
  const lead = text.slice(0, Math.max(0, source.column - 1 - indent)).replace(/[^\t]/g, ' ')
  const gutter = `${source.line} │ `
  return h(
    'figure',
    { class: 'source', 'aria-label': `source ${place}` },
    h('figcaption', {}, 'stopped at ', h('span', { class: 'mono' }, place)),
    h(
      'pre',
      {},
      h('span', { class: 'line-no', 'aria-hidden': 'true' }, gutter),
      text,
      '\n',
      h('span', { class: 'caret', 'aria-hidden': 'true' }, `${' '.repeat(gutter.length)}${lead}^`),
    ),
  )
}

/** forge's `Backtrace:`, innermost first: `at Contract.function (file:line:column)` */
export function renderBacktrace(div, backtrace) {
  if (!backtrace?.length) return div.replaceChildren()
  const entry = (b) => {
    const where = b.file ? `${b.file}:${b.line}:${b.column}` : 'no source'
    return h('li', {}, 'at ', h('b', {}, b.function ? `${b.contract}.${b.function}` : b.contract), ' ', h('span', { class: 'mono' }, `(${where})`))
  }
  div.replaceChildren(h('h2', {}, 'Backtrace'), h('ol', { class: 'backtrace' }, backtrace.map(entry)))
}

/** the trace's warnings (a verified-sources service down or slow: the trace came without those sources) */
export function renderWarnings(div, warnings) {
  if (!warnings?.length) return div.replaceChildren()
  div.replaceChildren(
    h(
      'ul',
      { class: 'warnings' },
      warnings.map((w) => h('li', {}, h('span', { class: 'tag warn' }, 'warning'), ' ', w)),
    ),
  )
}
