/** The one DOM helper of the inbox: enough to build rows without a framework. */

/**
 * `h('p', { class: 'x', onclick: fn }, 'text', child, [more])`: an element with attributes
 * (`on…` functions become listeners) and children; arrays are flattened, and null, undefined
 * and false are skipped, so optional parts can be written inline.
 */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (typeof value === 'function') element.addEventListener(name.slice(2), value);
    else element.setAttribute(name, value);
  }
  const kept = children.flat(2).filter((c) => c !== null && c !== undefined && c !== false);
  element.append(...kept);
  return element;
}
