// A typedoc plugin: the landing page shows the README below typedoc's own page title, so the
// README's first heading (`# @idgov/sdk`, which GitHub and npm need) would appear twice there.
// It is dropped from the landing page only.
import { MarkdownEvent } from 'typedoc';

/** @param {import('typedoc').Application} app */
export function load(app) {
  app.renderer.on(MarkdownEvent.PARSE, (event) => {
    if (event.page.url !== 'index.html') return;
    const name = app.options.getValue('name');
    const heading = /^\s*<h1\b[^>]*>([^<]*)(?:<a\b[\s\S]*?<\/a>)?<\/h1>\s*/;
    const match = heading.exec(event.parsedText);
    if (match && match[1]?.trim() === name) event.parsedText = event.parsedText.slice(match[0].length);
  });
}
