import { useRef, useState, type DragEvent, type ReactNode, type RefObject } from 'react';

/** The file input behind a screen's own "choose a file" button: `open` shows the file dialog, `clear` empties the input so that the same file can be chosen again. */
export interface FileChoice {
  ref: RefObject<HTMLInputElement | null>;
  open: () => void;
  clear: () => void;
}

export function useFileChoice(): FileChoice {
  const ref = useRef<HTMLInputElement>(null);
  return {
    ref,
    open: () => ref.current?.click(),
    clear: () => {
      if (ref.current) ref.current.value = '';
    },
  };
}

/** The input itself: out of sight, out of the tab order and of the accessibility tree (the button is what people use). `onFiles` gets the chosen files, never none. */
export function HiddenFileInput({
  choice,
  accept,
  multiple,
  testId,
  onFiles,
}: {
  choice: FileChoice;
  accept?: string;
  multiple?: boolean;
  testId: string;
  onFiles: (files: FileList) => void;
}) {
  return (
    <input
      ref={choice.ref}
      type="file"
      accept={accept}
      multiple={multiple}
      className="pp-visually-hidden"
      tabIndex={-1}
      aria-hidden="true"
      onChange={(e) => {
        const files = e.currentTarget.files;
        if (files && files.length > 0) onFiles(files);
      }}
      data-testid={testId}
    />
  );
}

/** An area files can be dropped on, marked while something is dragged over it. `onFiles` gets the dropped files, never none. */
export function DropZone({ onFiles, children }: { onFiles: (files: FileList) => void; children: ReactNode }) {
  const [dragging, setDragging] = useState(false);
  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    if (event.dataTransfer.files.length > 0) onFiles(event.dataTransfer.files);
  };
  return (
    <div
      className="pp-dropzone"
      data-active={dragging}
      onDragOver={(e) => {
        e.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={onDrop}
    >
      {children}
    </div>
  );
}
