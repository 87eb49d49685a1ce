/**
 * A profile's stacks as a speedscope document (speedscope's file-format-spec.ts, the schema at
 * https://www.speedscope.app/file-format-schema.json): one `sampled` profile whose samples are the
 * distinct stacks, each weighed by the gas spent at its top, in the order the stacks first ran.
 * Gas is no unit speedscope knows, so the unit is `none`.
 */
export interface SpeedscopeFrame {
  name: string
  file?: string
  line?: number
}

export interface SpeedscopeFile {
  $schema: 'https://www.speedscope.app/file-format-schema.json'
  shared: { frames: SpeedscopeFrame[] }
  profiles: {
    type: 'sampled'
    name: string
    unit: 'none'
    startValue: number
    endValue: number
    samples: number[][]
    weights: number[]
  }[]
  name: string
  activeProfileIndex: number
  exporter: string
}

export interface WeighedStack {
  /** frame names from the top call down */
  names: readonly string[]
  gas: number
}

export function speedscopeOf(name: string, stacks: readonly WeighedStack[]): SpeedscopeFile {
  const frames: SpeedscopeFrame[] = []
  const ids = new Map<string, number>()
  const frameId = (n: string): number => {
    let id = ids.get(n)
    if (id === undefined) {
      id = frames.length
      ids.set(n, id)
      frames.push({ name: n })
    }
    return id
  }
  const samples = stacks.map((s) => s.names.map(frameId))
  const weights = stacks.map((s) => s.gas)
  const total = weights.reduce((a, b) => a + b, 0)
  return {
    $schema: 'https://www.speedscope.app/file-format-schema.json',
    shared: { frames },
    profiles: [{ type: 'sampled', name, unit: 'none', startValue: 0, endValue: total, samples, weights }],
    name,
    activeProfileIndex: 0,
    exporter: 'evm-sim gasProfile',
  }
}
