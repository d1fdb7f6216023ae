import Link from 'next/link';
import Markdown, { type Components } from 'react-markdown';
import remarkGfm from 'remark-gfm';
import { docLinkHref } from './doc-links';

const HEADINGS = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'] as const;

/**
 * A findings doc's Markdown, GitHub-flavoured (tables, nested lists), as React elements. Raw HTML in it stays text
 * (react-markdown's default without rehype-raw), and links go only where docLinkHref allows.
 */
export default function DocMarkdown({ markdown, ruleIds, headingOffset = 0 }: { markdown: string; ruleIds: ReadonlySet<string>; headingOffset?: number }) {
  const components: Components = {
    a: ({ href, children }) => {
      const to = href ? docLinkHref(href, ruleIds) : null;
      if (to === null) return <>{children}</>;
      return to.startsWith('/') ? (
        <Link href={to}>{children}</Link>
      ) : (
        <a href={to} rel="noreferrer" target="_blank">
          {children}
        </a>
      );
    },
    table: ({ node: _node, ...props }) => (
      <div className="table-wrap">
        <table className="data" {...props} />
      </div>
    ),
    pre: ({ node: _node, ...props }) => <pre className="command" {...props} />,
  };
  HEADINGS.forEach((tag, i) => {
    components[tag] = HEADINGS[Math.min(HEADINGS.length - 1, i + headingOffset)];
  });
  return (
    <div className="markdown">
      <Markdown remarkPlugins={[remarkGfm]} components={components}>
        {markdown}
      </Markdown>
    </div>
  );
}
