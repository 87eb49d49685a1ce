// The source pane: one of the selected frame's source files, whole, with the line its frame
// reverted at and the debugger's current line marked; a list picks the file among the sources of
// the frame's contract (tracer `frameSteps` sends them with a frame's first page of steps).
import { h } from './format.js'

/** `root`: the pane's element; answers { clear(message), show(files, marks), mark(marks) } */
export function sourcePane(root) {
  const select = h('select', { 'aria-label': 'Source file' })
  const caption = h('p', { class: 'marks' })
  const code = h('ol', { class: 'code', 'aria-label': 'Source' })
  const message = h('p', { class: 'muted' }, 'Select a frame.')
  root.replaceChildren(h('label', { class: 'file' }, 'File ', select), caption, message, code)
  let files = []
  let shown // the file's path drawn in `code`
  let marks = {} // { revert, current }: { file, line, column }

  function draw(path) {
    shown = path
    select.value = path
    const file = files.find((f) => f.path === path)
    message.hidden = Boolean(file?.content)
    if (!file?.content) {
      message.textContent = file ? `${path}: not sent (the size cap of an answer's sources).` : 'No source file.'
      return code.replaceChildren()
    }
    code.replaceChildren(
      ...file.content
        .split('\n')
        .map((text, i) => h('li', { 'data-line': i + 1 }, h('span', { class: 'no', 'aria-hidden': 'true' }, i + 1), h('code', {}, text || ' '))),
    )
  }

  /** the marks drawn on the file shown; the current line scrolled into view */
  function paint() {
    for (const li of code.querySelectorAll('.revert-line, .current-line')) li.classList.remove('revert-line', 'current-line')
    const lineIn = (m) => (m?.file === shown ? code.children[m.line - 1] : undefined)
    lineIn(marks.revert)?.classList.add('revert-line')
    const current = lineIn(marks.current)
    current?.classList.add('current-line')
    const where = (m) => `${m.file}:${m.line}${m.column ? `:${m.column}` : ''}`
    caption.replaceChildren(
      marks.revert ? h('span', { class: 'revert' }, 'reverted at ', h('span', { class: 'mono' }, where(marks.revert))) : '',
      marks.revert && marks.current ? ' · ' : '',
      marks.current ? h('span', {}, 'debugger at ', h('span', { class: 'mono' }, where(marks.current))) : '',
    )
    // the listing scrolls, not the page: the line to the middle of the listing
    const target = current ?? lineIn(marks.revert)
    if (target) code.scrollTop = target.offsetTop - code.clientHeight / 2
  }

  select.addEventListener('change', () => {
    draw(select.value)
    paint()
  })

  return {
    clear(text) {
      files = []
      marks = {}
      shown = undefined
      select.replaceChildren()
      select.disabled = true
      caption.replaceChildren()
      code.replaceChildren()
      message.hidden = false
      message.textContent = text
    },
    /** the frame's files, the one `prefer` names (else the first marked, else the first) drawn */
    show(list, nextMarks, prefer) {
      files = list
      marks = nextMarks
      select.replaceChildren(...files.map((f) => h('option', { value: f.path }, f.path)))
      select.disabled = files.length === 0
      draw(prefer ?? marks.current?.file ?? marks.revert?.file ?? files[0]?.path)
      paint()
    },
    /** new marks; the file of the current line drawn if another was shown */
    mark(nextMarks) {
      marks = nextMarks
      const wanted = marks.current?.file
      if (wanted && wanted !== shown && files.some((f) => f.path === wanted)) draw(wanted)
      paint()
    },
  }
}
