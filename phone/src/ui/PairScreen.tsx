import { useEffect, useRef, useState } from 'react';
import { decodeQR } from 'qr/decode.js';
import { decodePairing, type Pairing } from '../../../server/sync/pairing-link';
import type { Wording } from '../i18n';

/**
 * Pairing: the link from the desktop's "Add a phone" — opened by the phone's camera app (it lands
 * here with `#pair=…`), scanned here, or pasted.
 */
export function PairScreen({ w, onPaired }: { w: Wording; onPaired: (pairing: Pairing) => void }) {
  const [text, setText] = useState('');
  const [problem, setProblem] = useState('');
  const [scanning, setScanning] = useState(false);
  const video = useRef<HTMLVideoElement>(null);

  const tryLink = (value: string): boolean => {
    const pairing = decodePairing(value);
    if (!pairing) return false;
    onPaired(pairing);
    return true;
  };

  useEffect(() => {
    if (!scanning) return;
    let stream: MediaStream | null = null;
    let frame = 0;
    let stopped = false;
    const canvas = document.createElement('canvas');
    const context = canvas.getContext('2d', { willReadFrequently: true });
    const look = () => {
      const player = video.current;
      if (stopped || !player || !context) return;
      if (player.videoWidth > 0) {
        canvas.width = player.videoWidth;
        canvas.height = player.videoHeight;
        context.drawImage(player, 0, 0);
        try {
          const found = decodeQR(context.getImageData(0, 0, canvas.width, canvas.height));
          if (tryLink(found)) return;
        } catch {
          // no code in this frame
        }
      }
      frame = requestAnimationFrame(look);
    };
    navigator.mediaDevices
      .getUserMedia({ video: { facingMode: 'environment' }, audio: false })
      .then(async (s) => {
        stream = s;
        if (!video.current || stopped) return;
        video.current.srcObject = s;
        await video.current.play();
        look();
      })
      .catch(() => {
        setProblem(w.t('scanNoCamera'));
        setScanning(false);
      });
    return () => {
      stopped = true;
      cancelAnimationFrame(frame);
      for (const track of stream?.getTracks() ?? []) track.stop();
    };
  }, [scanning]);

  return (
    <main className="pair">
      <h1>{w.t('pairTitle')}</h1>
      <p>{w.t('pairHelp')}</p>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (!tryLink(text)) setProblem(w.t('pairBad'));
        }}
      >
        <label className="field">
          <span>{w.t('pairLink')}</span>
          <textarea rows={3} value={text} onChange={(e) => setText(e.target.value)} autoCapitalize="off" autoCorrect="off" spellCheck={false} />
        </label>
        {problem && (
          <p className="problem" role="alert">
            {problem}
          </p>
        )}
        <div className="actions">
          <button type="button" className="secondary" onClick={() => setScanning(!scanning)}>
            {scanning ? w.t('scanStop') : w.t('scan')}
          </button>
          <button type="submit" className="primary">
            {w.t('pair')}
          </button>
        </div>
      </form>
      {scanning && <video ref={video} className="scanner" muted playsInline aria-label={w.t('scan')} />}
    </main>
  );
}
