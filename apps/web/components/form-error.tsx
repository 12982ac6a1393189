/** A form's error line, announced at once; nothing while there is none. */
export function FormError({ error, testId }: { error: string | null; testId?: string }) {
  if (!error) return null;
  return (
    <p className="form-error" role="alert" data-testid={testId}>
      {error}
    </p>
  );
}
