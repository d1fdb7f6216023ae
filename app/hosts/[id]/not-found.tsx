import Link from 'next/link';

export default function HostNotFound() {
  return (
    <div className="state state-empty">
      <p className="state-title">No such host.</p>
      <p className="muted">
        It may have been removed, or the link is mistyped. Find it on the <Link href="/">fleet page</Link>.
      </p>
    </div>
  );
}
