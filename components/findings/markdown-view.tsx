import Link from 'next/link';
import { Fragment } from 'react';
import { parseCodeSpans, type Block, type Inline } from './markdown';

function InlineView({ nodes }: { nodes: Inline[] }) {
  return (
    <>
      {nodes.map((node, i) => {
        switch (node.kind) {
          case 'text':
            return <Fragment key={i}>{node.text}</Fragment>;
          case 'code':
            return <code key={i}>{node.text}</code>;
          case 'strong':
            return (
              <strong key={i}>
                <InlineView nodes={node.children} />
              </strong>
            );
          case 'em':
            return (
              <em key={i}>
                <InlineView nodes={node.children} />
              </em>
            );
          case 'link':
            if (node.href === null) return <InlineView key={i} nodes={node.children} />;
            return node.href.startsWith('/') ? (
              <Link key={i} href={node.href}>
                <InlineView nodes={node.children} />
              </Link>
            ) : (
              <a key={i} href={node.href} rel="noreferrer noopener" target="_blank">
                <InlineView nodes={node.children} />
              </a>
            );
        }
      })}
    </>
  );
}

/** Blocks from parseMarkdown as React elements: every string goes through React's escaping. */
export function MarkdownView({ blocks, headingOffset = 2 }: { blocks: Block[]; headingOffset?: number }) {
  return (
    <div className="markdown">
      {blocks.map((block, i) => {
        switch (block.kind) {
          case 'heading': {
            const level = Math.min(6, block.level + headingOffset);
            const Tag = `h${level}` as 'h3';
            return (
              <Tag key={i}>
                <InlineView nodes={block.children} />
              </Tag>
            );
          }
          case 'paragraph':
            return (
              <p key={i}>
                <InlineView nodes={block.children} />
              </p>
            );
          case 'list': {
            const Tag = block.ordered ? 'ol' : 'ul';
            return (
              <Tag key={i}>
                {block.items.map((item, j) => (
                  <li key={j}>
                    <InlineView nodes={item} />
                  </li>
                ))}
              </Tag>
            );
          }
          case 'table':
            return (
              <div key={i} className="table-wrap">
                <table className="data">
                  <thead>
                    <tr>
                      {block.header.map((cell, j) => (
                        <th key={j} scope="col">
                          <InlineView nodes={cell} />
                        </th>
                      ))}
                    </tr>
                  </thead>
                  <tbody>
                    {block.rows.map((row, j) => (
                      <tr key={j}>
                        {row.map((cell, k) => (
                          <td key={k}>
                            <InlineView nodes={cell} />
                          </td>
                        ))}
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            );
          case 'code':
            return (
              <pre key={i} className="command">
                <code>{block.text}</code>
              </pre>
            );
        }
      })}
    </div>
  );
}

/** Text with its `code` spans shown as code (see parseCodeSpans): nothing else in it is interpreted. */
export function TextWithCode({ text }: { text: string }) {
  return <InlineView nodes={parseCodeSpans(text)} />;
}
