// An open file across several collective calls: the seam between an operation sequence (open, set_view,
// write x n, read x n, sync, close, ...) and a technique that keeps state between the calls (view-based
// collective I/O's cached collective buffers).
//
// The driver (sim/ and validate/) opens the file (Process::file_open), creates one Session per rank, calls
// its methods in the order the sequence lists them on every rank (each of them is collective), then calls
// close() and only then Process::file_close(). A technique that keeps no state between calls is run through
// a generic session that calls its TechniqueInfo::run / ::read at the displacement of the current view.
#pragma once

#include <cstddef>
#include <span>
#include <stdexcept>

#include "algorithms/common/process.hpp"

namespace ciosim {

struct Distribution;

class Session {
 public:
  virtual ~Session() = default;
  /// MPI_File_set_view: from now on the rank's entries of x are at byte `displacement` + (the position the
  /// technique's layout gives them). Collective. The driver calls it once right after open (displacement
  /// 0) and again wherever the sequence sets a view.
  virtual void set_view(Offset displacement) = 0;
  /// MPI_File_set_view with another filetype: from the next set_view on, the rank's entries are those of `d`
  /// (kept by pointer: it must outlive its use). The driver calls set_view right after (a replayed
  /// application whose calls change their regions, algorithms/replay.hpp). Local: nothing is sent.
  virtual void set_distribution(const Distribution& d) = 0;
  /// MPI_File_write_at_all / read_at_all's explicit offset: the calls that follow access the current view
  /// moved `offset` bytes further (>= 0, relative to the view's displacement). No new view is set or sent.
  virtual void seek(Offset offset) = 0;
  /// One collective write of the rank's entries (storage order) through the current view.
  virtual void write(std::span<const std::byte> local) = 0;
  /// One collective read of the rank's entries (storage order) through the current view.
  virtual void read(std::span<std::byte> out) = 0;
  /// A collective write of part `part` of `parts` of the rank's entries (those from floor(part * n / parts)
  /// to floor((part + 1) * n / parts) in the view's order, n the rank's entries): a call on part of the view.
  /// `local` holds all the rank's entries (storage order); the call writes only the part's. Only a session
  /// whose technique declares TechniqueInfo::partial_calls implements it.
  virtual void write_part(std::span<const std::byte> local, int part, int parts) {
    (void)local, (void)part, (void)parts;
    throw std::logic_error("this technique writes a rank's whole view in every call");
  }
  /// The read of that part, into the part's entries of `out` (storage order); the other bytes stay as they
  /// are.
  virtual void read_part(std::span<std::byte> out, int part, int parts) {
    (void)out, (void)part, (void)parts;
    throw std::logic_error("this technique reads a rank's whole view in every call");
  }
  /// MPI_File_sync: everything written so far is on the file system when it returns. Collective.
  virtual void sync() = 0;
  /// Before MPI_File_close: write back what the technique still holds (write-on-close). Collective.
  virtual void close() = 0;
};

/// A session whose technique keeps no view of its own: the view is the Process's file displacement
/// (Process::set_file_displacement), which every write_at, read_at and list region adds, as MPI-IO adds a
/// view's displacement and an explicit offset; sync is MPI_File_sync, close holds nothing back. Subclasses
/// give write and read.
class DisplacementSession : public Session {
 public:
  explicit DisplacementSession(Process& p) : p_(p) {}
  void set_view(Offset displacement) override {
    disp_ = displacement;
    p_.set_file_displacement(displacement);
  }
  void seek(Offset offset) override { p_.set_file_displacement(disp_ + offset); }
  void sync() override { p_.file_sync(); }
  void close() override { p_.set_file_displacement(0); }

 protected:
  Process& p_;

 private:
  Offset disp_ = 0;
};

}  // namespace ciosim
