#include "scheduler/pipeline_runner.h"

namespace shoal::scheduler {

namespace {

/// Thrown through a pipeline's operators when its sink is satisfied (a LIMIT holds enough rows), to end
/// the morsel: a cross product or a join that would make millions more rows stops at once.
struct SinkSatisfied {};

/// Runs `chunk` through the pipeline's operators from `first` on, into its sink. An operator may pass on
/// several chunks; each is checked for cancellation, and for a sink that needs no more, before the next step.
void pushThroughOperators(const engine::Pipeline& pipeline, size_t first, engine::Chunk& chunk,
                          engine::LocalSinkState& local, WorkerContext& context) {
  context.checkCancelled();
  if (pipeline.sink->satisfied()) throw SinkSatisfied{};
  if (chunk.size() == 0) return;
  if (first == pipeline.operators.size()) {
    pipeline.sink->consume(chunk, local);
    return;
  }
  pipeline.operators[first]->stream(
      chunk, [&](engine::Chunk& output) { pushThroughOperators(pipeline, first + 1, output, local, context); });
}

}  // namespace

std::shared_ptr<QueryExecution> PipelineRunner::start(std::vector<engine::Pipeline> pipelines, uint32_t priority,
                                                      uint64_t memoryLimitBytes) {
  std::vector<PipelineJob> jobs;
  uint32_t threads = dispatcher_.numThreads();
  for (size_t index = 0; index < pipelines.size(); ++index) {
    auto pipeline = std::make_shared<engine::Pipeline>(std::move(pipelines[index]));
    // Slot i belongs to dispatcher thread i alone while morsels run; finish reads them all after.
    auto localStates = std::make_shared<std::vector<std::unique_ptr<engine::LocalSinkState>>>(threads);
    PipelineJob job;
    job.name = "pipeline " + std::to_string(index);
    job.dependencies = pipeline->dependencies;
    job.gate = pipeline->source->gate();
    // A source that streams (an exchange) hands out its morsels as its input arrives.
    engine::MorselStream* stream = dynamic_cast<engine::MorselStream*>(pipeline->source.get());
    if (stream != nullptr && !stream->streams()) stream = nullptr;
    if (stream != nullptr) {
      job.stream = std::shared_ptr<engine::MorselStream>(pipeline, stream);
      job.gate = nullptr;
    }
    job.prepare = [pipeline] {
      std::vector<Morsel> morsels;
      size_t count = pipeline->source->numMorsels();
      for (size_t morsel = 0; morsel < count; ++morsel) {
        morsels.push_back({morsel, pipeline->source->morselNode(morsel)});
      }
      return morsels;
    };
    job.runMorsel = [pipeline, localStates, stream](const Morsel& morsel, WorkerContext& context) {
      // A streamed morsel not produced (the sink needs no more, or an error comes first) lets its message go.
      struct Skip {
        engine::MorselStream* stream;
        size_t morsel;
        ~Skip() {
          if (stream != nullptr) stream->skip(morsel);
        }
      } skip{stream, morsel.index};
      auto& local = (*localStates)[context.threadIndex()];
      if (!local) local = pipeline->sink->makeLocalState();
      if (pipeline->sink->satisfied()) return;  // the morsels left are not needed
      try {
        pipeline->source->produce(
            morsel.index, [&](engine::Chunk& chunk) { pushThroughOperators(*pipeline, 0, chunk, *local, context); });
      } catch (const SinkSatisfied&) {
        // The operators unwound as they do for a cancel; the rows the sink took are all it needs.
      }
    };
    job.finish = [pipeline, localStates] {
      for (auto& local : *localStates) {
        if (local) pipeline->sink->combine(*local);
      }
      localStates->clear();
      pipeline->sink->finalize();
    };
    jobs.push_back(std::move(job));
  }
  return dispatcher_.submit(std::move(jobs), priority, memoryLimitBytes);
}

}  // namespace shoal::scheduler
