//! The generation thread: one model on the CPU serves the requests of a
//! bounded queue in arrival order, decoding up to `max_batch` of them
//! together on the project's decoder (see [`super::batch`]) and one at a
//! time on candle's models.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering;
use std::sync::mpsc::{sync_channel, SyncSender, TrySendError};
use std::sync::Arc;

use super::error::ApiError;
use super::job::{options_for, prepare_turn, Forward, Job, Load, Reply};
use crate::generate::GenerateOptions;
use crate::local::LocalChat;

/// The handle the HTTP side submits jobs through.
#[derive(Debug, Clone)]
pub(crate) struct Worker {
    jobs: SyncSender<Job>,
    max_queue: usize,
    load: Arc<Load>,
}

impl Worker {
    /// Starts the thread that owns the model, which decodes up to
    /// `max_batch` requests together where the model allows it.
    pub fn spawn(
        chat: LocalChat,
        defaults: GenerateOptions,
        max_queue: usize,
        max_batch: usize,
    ) -> std::io::Result<Worker> {
        let (jobs, queue) = sync_channel::<Job>(max_queue);
        let load = Arc::new(Load::default());
        let seen = Arc::clone(&load);
        std::thread::Builder::new()
            .name("tool-use-model".into())
            .spawn(move || {
                let mut chat = chat;
                if max_batch > 1 && chat.model().runs_together() {
                    return super::batch::run(&mut chat, &defaults, &queue, &seen, max_batch);
                }
                for job in queue {
                    seen.queued.fetch_sub(1, Ordering::Relaxed);
                    if job.cancel.is_cancelled() {
                        continue;
                    }
                    seen.generating.store(1, Ordering::Relaxed);
                    // A bug in one request must not take the server down.
                    let outcome =
                        catch_unwind(AssertUnwindSafe(|| serve(&mut chat, &defaults, &job)))
                            .unwrap_or_else(|_| {
                                Err(ApiError::internal("generation failed unexpectedly"))
                            });
                    seen.generating.store(0, Ordering::Relaxed);
                    if let Err(e) = outcome {
                        let _ = job.replies.send(Reply::Failed(e));
                    }
                }
            })?;
        Ok(Worker {
            jobs,
            max_queue,
            load,
        })
    }

    /// Queues a job, or refuses it at once when the queue is full.
    pub fn submit(&self, job: Job) -> Result<(), ApiError> {
        self.load.queued.fetch_add(1, Ordering::Relaxed);
        self.jobs.try_send(job).map_err(|e| {
            self.load.queued.fetch_sub(1, Ordering::Relaxed);
            match e {
                TrySendError::Full(_) => ApiError::busy(self.max_queue),
                TrySendError::Disconnected(_) => ApiError::internal("the model thread has stopped"),
            }
        })
    }

    /// Requests waiting, and requests generating.
    pub fn load(&self) -> (usize, usize) {
        (
            self.load.queued.load(Ordering::Relaxed),
            self.load.generating.load(Ordering::Relaxed),
        )
    }
}

/// Runs one request, sending its replies as they come.
fn serve(chat: &mut LocalChat, defaults: &GenerateOptions, job: &Job) -> Result<(), ApiError> {
    let prepared = prepare_turn(chat, job)?;
    let started = Reply::Started {
        prompt_tokens: prepared.prompt_tokens(),
    };
    if job.replies.send(started).is_err() {
        return Ok(());
    }
    let options = options_for(&job.request, defaults, &job.cancel);
    let mut out = Forward::new(chat, job);
    let generation = chat.generate(prepared, &options, &mut |text| out.text(text))?;
    out.done(generation);
    Ok(())
}
