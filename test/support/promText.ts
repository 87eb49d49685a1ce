/**
 * A strict reader of the Prometheus text exposition format (version 0.0.4), for tests: every line
 * is a `# HELP`, a `# TYPE` or a sample of a family declared before it (histograms' `_bucket`,
 * `_sum`, `_count` included); label values are unescaped; a malformed line throws. Histograms are
 * checked as a scraper would: buckets cumulative, `+Inf` equal to `_count`.
 */
export interface Sample {
  name: string
  labels: Record<string, string>
  value: number
}

export interface Family {
  name: string
  type: string
  help: string
  samples: Sample[]
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/
const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/
const LABEL = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(,|$)/y

export function parsePromText(text: string): Map<string, Family> {
  const families = new Map<string, Family>()
  const familyOf = (sample: string): Family | undefined => {
    if (families.has(sample)) return families.get(sample)
    for (const suffix of ['_bucket', '_sum', '_count']) {
      if (!sample.endsWith(suffix)) continue
      const f = families.get(sample.slice(0, -suffix.length))
      if (f && (f.type === 'histogram' || f.type === 'summary')) return f
    }
    return undefined
  }
  for (const line of text.split('\n')) {
    if (line === '') continue
    if (line.startsWith('# HELP ') || line.startsWith('# TYPE ')) {
      const [, kind, name, ...rest] = line.split(' ')
      if (!name || !NAME.test(name)) throw new Error(`bad metric name in: ${line}`)
      const f = families.get(name) ?? { name, type: 'untyped', help: '', samples: [] }
      if (kind === 'HELP') f.help = rest.join(' ')
      else {
        if (!['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(rest[0] ?? '')) throw new Error(`bad type in: ${line}`)
        f.type = rest[0]!
      }
      families.set(name, f)
      continue
    }
    if (line.startsWith('#')) continue
    const m = SAMPLE.exec(line)
    if (!m) throw new Error(`not a sample line: ${line}`)
    const [, name, labelText = '', valueText] = m
    const family = familyOf(name!)
    if (!family) throw new Error(`sample of an undeclared family: ${line}`)
    // as Prometheus reads it (Go's ParseFloat): Inf and NaN in any case
    const value = /^\+?inf$/i.test(valueText!) ? Infinity : /^-inf$/i.test(valueText!) ? -Infinity : /^nan$/i.test(valueText!) ? NaN : Number(valueText)
    if (Number.isNaN(value) && !/^nan$/i.test(valueText!)) throw new Error(`bad value in: ${line}`)
    const labels: Record<string, string> = {}
    LABEL.lastIndex = 0
    while (LABEL.lastIndex < labelText.length) {
      const l = LABEL.exec(labelText)
      if (!l) throw new Error(`bad labels in: ${line}`)
      labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c))
    }
    family.samples.push({ name: name!, labels, value })
  }
  for (const f of families.values()) if (f.type === 'histogram') checkHistogram(f)
  return families
}

function checkHistogram(f: Family): void {
  const series = new Map<string, Sample[]>()
  for (const s of f.samples) {
    if (s.name !== `${f.name}_bucket`) continue
    const { le: _le, ...rest } = s.labels
    const key = JSON.stringify(Object.entries(rest).sort())
    series.set(key, [...(series.get(key) ?? []), s])
  }
  for (const [key, buckets] of series) {
    let last = 0
    for (const b of buckets) {
      if (b.value < last) throw new Error(`${f.name}${key}: buckets not cumulative`)
      last = b.value
    }
    const inf = buckets.at(-1)!
    if (inf.labels.le !== '+Inf') throw new Error(`${f.name}${key}: no +Inf bucket last`)
    const count = f.samples.find((s) => s.name === `${f.name}_count` && JSON.stringify(Object.entries(s.labels).sort()) === key)
    if (!count || count.value !== inf.value) throw new Error(`${f.name}${key}: _count is not the +Inf bucket`)
  }
}

/** the sum of `name`'s samples whose labels include `labels` (0 when none) */
export function sampleSum(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number {
  const family = [...families.values()].find((f) => f.samples.some((s) => s.name === name)) ?? families.get(name)
  let sum = 0
  for (const s of family?.samples ?? []) {
    if (s.name !== name) continue
    if (Object.entries(labels).every(([k, v]) => s.labels[k] === v)) sum += s.value
  }
  return sum
}

/** every label value of every sample */
export function labelValues(families: Map<string, Family>): string[] {
  return [...families.values()].flatMap((f) => f.samples.flatMap((s) => Object.values(s.labels)))
}
