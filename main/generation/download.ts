import { createModelDownloader, type ModelDownloader } from 'node-llama-cpp';

/** One model download, as the model library drives it. */
export interface ModelDownload {
  /** Where the file lands. */
  readonly file: string;
  totalBytes(): number;
  downloadedBytes(): number;
  /** Resolves with the file once complete; a cancelled or failed download rejects. */
  download(signal: AbortSignal): Promise<string>;
  /** Stops it and keeps the partial file, so asking again for the same source resumes. */
  cancel(): Promise<void>;
}

/**
 * node-llama-cpp's downloader (ipull: parallel connections, resumable, `hf:` references and split
 * files resolved), set up to keep partial files and to skip a file already complete.
 */
export async function startModelDownload(options: { source: string; folder: string; fileName?: string }): Promise<ModelDownload> {
  const downloader: ModelDownloader = await createModelDownloader({
    modelUri: options.source,
    dirPath: options.folder,
    ...(options.fileName ? { fileName: options.fileName } : {}),
    skipExisting: true,
    deleteTempFileOnCancel: false,
    showCliProgress: false,
  });
  return {
    file: downloader.entrypointFilePath,
    totalBytes: () => downloader.totalSize,
    downloadedBytes: () => downloader.downloadedSize,
    download: (signal) => downloader.download({ signal }),
    cancel: () => downloader.cancel({ deleteTempFile: false }),
  };
}
