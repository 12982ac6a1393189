'use client';

import { useEffect, useRef, type ReactNode } from 'react';

interface MenuProps {
  /** The summary's content (an icon, a name). */
  trigger: ReactNode;
  label?: string;
  testId: string;
  className?: string;
  summaryClassName?: string;
  /** Close when an item is clicked (action lists); false for menus holding form fields. */
  closeOnClick?: boolean;
  children: ReactNode;
}

/** A dropdown on <details>: keyboard accessible as is; closes on a click outside. */
export function Menu({ trigger, label, testId, className, summaryClassName, closeOnClick = true, children }: MenuProps) {
  const ref = useRef<HTMLDetailsElement>(null);
  useEffect(() => {
    const onPointerDown = (event: PointerEvent) => {
      const menu = ref.current;
      if (menu?.open && event.target instanceof Node && !menu.contains(event.target)) menu.open = false;
    };
    document.addEventListener('pointerdown', onPointerDown);
    return () => document.removeEventListener('pointerdown', onPointerDown);
  }, []);
  return (
    <details ref={ref} className={className ? `menu ${className}` : 'menu'} data-testid={testId}>
      <summary className={summaryClassName ?? 'icon-button'} aria-label={label} title={label}>
        {trigger}
      </summary>
      <div
        className="menu-items"
        onClick={(event) => {
          if (closeOnClick && event.target instanceof HTMLButtonElement && ref.current) ref.current.open = false;
        }}
      >
        {children}
      </div>
    </details>
  );
}
