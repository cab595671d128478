/**
 * Markdown from the host (tool docs, written partly by API authors) rendered as HTML and sanitised: no scripts, no
 * event handlers, no inline styles (the CSP would refuse them), no images (img-src allows only this origin, and a
 * document's remote image would be a request to a third party), links opened in a new tab without a referrer.
 */
import DOMPurify from "dompurify";
import { marked } from "marked";
import { useMemo } from "react";

DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "A") {
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer");
  }
});

export function renderMarkdown(text: string): string {
  const html = marked.parse(text, { async: false, gfm: true });
  return DOMPurify.sanitize(html, {
    FORBID_TAGS: ["style", "img", "picture", "source", "video", "audio", "iframe", "form", "input", "svg", "math"],
    FORBID_ATTR: ["style", "srcset"],
    ALLOW_DATA_ATTR: false,
  });
}

export function Markdown({ text }: { text: string }) {
  const html = useMemo(() => renderMarkdown(text), [text]);
  // biome-ignore lint/security/noDangerouslySetInnerHtml: sanitised by DOMPurify above.
  return <div className="markdown" dangerouslySetInnerHTML={{ __html: html }} />;
}
